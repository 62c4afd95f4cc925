// A session an ACP client opened again (docs/behaviour.md §4): the Claude
// ACP adapter's `resumed` and `continued` captures, each later run a new
// adapter process that resumed or loaded the session, opened by URL. Each
// reopening is one quiet row; a load's replay of the history shows nothing
// twice; /compact is a command row and a compaction row, never a prompt of
// the user's. And a turn the client cancelled (`session/cancel` while the
// wave runs, the `interrupted` capture): one status row ends it, and the
// runs it cut off read cancelled, as the agent recorded stopping them
// (docs/behaviour.md §1). What is
// expected comes from the scenarios' scripts.
import { test, expect } from '../lib/fixtures.mjs';
import { captures, toolCalls, WRAPPERS } from '../lib/captures.mjs';
import resumed, { firstRun, resumeAndContinue } from '../../captures/scenarios/resumed.mjs';
import continued from '../../captures/scenarios/continued.mjs';
import interrupted from '../../captures/scenarios/interrupted.mjs';
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

test('ACP interrupted: the client cancels mid-wave; the prompt once, one status row ends the turn, each run cut off reads cancelled, no spinner',
  async ({ page, app, serveFile }) => {
    const capture = captures(ACP).find((c) => c.name === interrupted.name);
    expect(capture, 'interrupted is captured').toBeTruthy();
    const src = serveFile(`tests/fixtures/captures/${ACP}/${interrupted.name}/acp-frames.jsonl`);
    const view = await TranscriptPage.openFile(page, app, src, { debug: true });
    const cut = capture.manifest.holds.agents;
    expect(cut.map((a) => [a.key, a.status])).toEqual(interrupted.interrupt.whileRunning.map((key) => [key, 'interrupted']));
    await expect(page.locator('[data-testid="subagent-card"]')).toHaveCount(cut.length, { timeout: 20000 });
    const users = await page.locator('.bubble-user').allTextContents();
    expect(users.map((text) => text.includes(interrupted.prompt)), 'the prompt, once').toEqual([true]);
    const rows = await view.rowSummary();
    expect(rows.filter((r) => r.trim().startsWith('unreadable')), 'unreadable rows').toEqual([]);
    for (const wrapper of WRAPPERS) await expect(view.scroller, `${wrapper} on screen`).not.toContainText(wrapper);
    await expect(page.locator('.status-line', { hasText: 'Turn ended: cancelled' }), 'the turn\'s end').toHaveCount(1);
    const faces = new Map((await view.topLevelFaces()).map(({ face }) => [face.descriptionTitle, face]));
    for (const agent of cut) {
      const face = faces.get(agent.description);
      expect(face, agent.key).toBeTruthy();
      expect(face.type, agent.key).toBe(agent.type);
      expect(face.status, agent.key).toBe('cancelled');
      // Cut off in its second step: only its first step's call was made.
      expect(face.childCount, agent.key).toBe(toolCalls(1));
      expect(face.summary, agent.key).toBeNull();
    }
    await expect(view.scroller.locator('.card-head .spinner'), 'spinning cards').toHaveCount(0);
  });
