// What happens to a session besides conversation is one quiet row each
// (docs/behaviour.md §4), and a file nobody writes any more tells an unsettled run as
// interrupted (docs/behaviour.md §8): a Claude Code session written from the facts of
// docs/formats.md §9 (three retries, a resume, a background
// run that never reported back, a manual /compact), opened by URL.
import { copyFileSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { ROOT } from '../lib/files.mjs';
import { openEverything } from '../lib/expand.mjs';
import { captures } from '../lib/captures.mjs';
import { dropFolder, filesUnder } from '../lib/drop.mjs';
import { EXPECTED_SUMMARIES } from '../../captures/scenarios/reports.mjs';
import { test, expect } from '../lib/fixtures.mjs';
import { TranscriptPage } from '../pages/transcript.mjs';

const SESSION = 'tests/fixtures/dialects/claude-code-session-ends.jsonl';
const AGENT = 'claude-code-session-ends/subagents/agent-a0e1d2c3b4a5f6e7d.jsonl';
/** Harness text that must never be on screen. */
const WRAPPERS = [
  'system-reminder', 'tools-used-before-summary', '<command-name>', '<local-command-',
  'Caveat:', 'ctrl+o', 'Async agent launched successfully',
];

test.use({ viewport: { width: 1280, height: 2400 } });

/** The session served with its subagent file beside it, opened in the file view. */
async function opened(page, app, serveFile) {
  const src = serveFile(SESSION);
  const served = path.join(ROOT, 'dist', path.dirname(src));
  mkdirSync(path.join(served, path.dirname(AGENT)), { recursive: true });
  for (const file of [AGENT, AGENT.replace(/\.jsonl$/, '.meta.json')]) {
    copyFileSync(path.join(ROOT, 'tests/fixtures/dialects', file), path.join(served, file));
  }
  const view = await TranscriptPage.openFile(page, app, src, { debug: true });
  await expect(page.locator('[data-event="compaction"]')).toBeVisible({ timeout: 20000 });
  return view;
}

test('compaction, command and retries are one quiet row each, expandable, with no wrapper text',
  async ({ page, app, serveFile }) => {
    const view = await opened(page, app, serveFile);
    const compaction = page.locator('[data-event="compaction"]');
    await expect(compaction.locator('summary')).toHaveText('Conversation compacted · manual');
    await compaction.locator('summary').click();
    await expect(compaction).toContainText('This session is being continued');
    await expect(compaction).toContainText('Two unwraps remain');
    const command = page.locator('[data-event="command"]');
    await expect(command).toHaveCount(1);
    await expect(command.locator('summary')).toHaveText('/compact');
    await command.locator('summary').click();
    await expect(command).toContainText('Compacted');
    await expect(page.locator('[data-event="api_retry"]')).toHaveText('3 retries · 529 overloaded');
    // Only what the user typed is a YOU prompt.
    await expect(page.locator('.bubble-user')).toHaveCount(2);
    await openEverything(page);
    const rows = await view.rowSummary();
    expect(rows.filter((r) => r.trim().startsWith('unreadable'))).toEqual([]);
    for (const wrapper of WRAPPERS) await expect(view.scroller, wrapper).not.toContainText(wrapper);
  });

test('a background run that never reported back reads interrupted, no result recorded, without a spinner',
  async ({ page, app, serveFile }) => {
    const view = await opened(page, app, serveFile);
    const [{ id, face }] = await view.topLevelFaces();
    expect(face.descriptionTitle).toBe('Audit the test suite');
    expect(face.status).toBe('interrupted · no result recorded');
    const card = view.message(id);
    await expect(card.locator('.card-head [data-testid="subagent-status"]')).toHaveAttribute('data-state', 'interrupted');
    await expect(card.locator('.card-head .spinner')).toHaveCount(0);
  });

for (const cli of ['claude-code-2.1.332', 'qwen-code-0.24.4']) {
  test(`${cli} reports story: each summary line as scripted, no injected markup runs or renders`,
    async ({ page, app }) => {
      const capture = captures(cli).find((c) => c.name === 'reports');
      const view = await new TranscriptPage(page).goto('view?debug', app);
      await dropFolder(view, capture.slug, filesUnder(capture.project));
      await expect(view.notShown).toBeVisible({ timeout: 20000 });
      const faces = new Map((await view.topLevelFaces()).map(({ face, summaryTitle }) => [face.descriptionTitle, summaryTitle]));
      for (const [description, summary] of Object.entries(EXPECTED_SUMMARIES)) {
        expect(faces.get(description), description).toBe(summary);
      }
      await openEverything(page);
      expect(await page.evaluate(() => window.__taskviewInjected)).toBeUndefined();
      await expect(view.scroller.locator('img[onerror], script, a[href^="javascript:"]')).toHaveCount(0);
    });
}
