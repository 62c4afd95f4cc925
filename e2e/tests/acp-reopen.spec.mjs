// A session an ACP client opened again (issue 34; SPEC.md §4): the Claude
// ACP adapter's `resumed` and `continued` captures, each later run a new
// adapter process that resumed or loaded the session, opened by URL. Each
// reopening is one quiet row; a load's replay of the history shows nothing
// twice; /compact is a command row and a compaction row, never a prompt of
// the user's. What is expected comes from the scenarios' scripts.
import { test, expect } from '../lib/fixtures.mjs';
import { captures } from '../lib/captures.mjs';
import resumed, { firstRun, resumeAndContinue } from '../../captures/scenarios/resumed.mjs';
import continued from '../../captures/scenarios/continued.mjs';
import { TranscriptPage } from '../pages/transcript.mjs';

const ACP = 'claude-agent-acp-0.101.0';
/** The prompts the user typed, in order, once each. */
const PROMPTS = [firstRun.prompt, ...resumeAndContinue.map((run) => run.prompt)];

test.use({ viewport: { width: 1280, height: 2400 } });

for (const scenario of [resumed, continued]) {
  test(`ACP ${scenario.name}: each later run one resumed row, the replay not shown twice, every reviewer one card`,
    async ({ page, app, serveFile }) => {
      const capture = captures(ACP).find((c) => c.name === scenario.name);
      expect(capture, `${scenario.name} is captured`).toBeTruthy();
      const src = serveFile(`tests/fixtures/captures/${ACP}/${scenario.name}/acp-frames.jsonl`);
      const view = await TranscriptPage.openFile(page, app, src, { debug: true });
      // The session is short: every row is drawn in this window.
      await expect(page.locator('[data-event="resume"]')).toHaveCount(scenario.runs.length, { timeout: 20000 });
      const users = await page.locator('.bubble-user').allTextContents();
      expect(users.map((text) => PROMPTS.find((prompt) => text.includes(prompt))), 'the typed prompts, once each, in order')
        .toEqual(PROMPTS);
      const rows = await view.rowSummary();
      expect(rows.filter((r) => r.trim().startsWith('unreadable')), 'unreadable rows').toEqual([]);
      const cards = rows.filter((r) => / subagent: /.test(r));
      expect(cards.length, 'one card per scripted reviewer').toBe(capture.manifest.holds.subagents);
      const faces = (await view.topLevelFaces()).map(({ face }) => face.descriptionTitle).sort();
      expect(faces).toEqual(capture.manifest.holds.agents.map((a) => a.description).sort());
      const compacted = scenario.runs.some((run) => run.how === 'compact');
      await expect(page.locator('[data-event="compaction"]')).toHaveCount(compacted ? 1 : 0);
      await expect(page.locator('[data-event="command"]')).toHaveCount(compacted ? 1 : 0);
      if (compacted) {
        // The adapter sends no output of the command: the row is its name alone.
        await expect(page.locator('[data-event="command"]')).toHaveText('/compact');
        const compaction = page.locator('[data-event="compaction"]');
        await compaction.locator('summary').click();
        await expect(compaction, 'the summary the session went on from').toContainText('This session is being continued');
      }
    });
}
