// Every dialect fixture opened through `/view?src=` renders its subagent cards
// (docs/behaviour.md §2, §3); the expected cards are in fixtures/dialect-cards.mjs.
import path from 'node:path';
import { test } from '../lib/fixtures.mjs';
import { TranscriptPage } from '../pages/transcript.mjs';
import { DIALECTS, expectDialect, expectExpanded, expectFaces } from '../fixtures/dialect-cards.mjs';

// Tall enough that every row of these small transcripts is rendered.
test.use({ viewport: { width: 1280, height: 2400 } });

for (const fixture of DIALECTS) {
  const name = path.basename(fixture.file);

  test(`${name} through /view?src= shows the expected card faces`, async ({ page, app, serveFile }) => {
    const view = await TranscriptPage.openFile(page, app, serveFile(fixture.file));
    await expectDialect(view, fixture.dialect);
    await expectFaces(view, fixture);
  });

  test(`${name}: expanded cards show their children, full result and prompt`, async ({ page, app, serveFile }) => {
    const view = await TranscriptPage.openFile(page, app, serveFile(fixture.file));
    await expectDialect(view, fixture.dialect);
    await expectExpanded(view, fixture);
  });
}
