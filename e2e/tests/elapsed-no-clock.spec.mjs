// The elapsed time of a run whose source keeps no clock (docs/behaviour.md §8): the
// Claude ACP adapter's frames carry no timestamps. Followed live by `taskview
// serve --recordings`, a run that was already going when the page opened has
// no elapsed figure in the roster (its start is unknown, never `0ms`); a run
// launched while the page looks is counted on the page's clock from when it
// arrived. Opened from disk, a file with no clock shows no elapsed time.
import { appendFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { ROOT } from '../lib/files.mjs';
import { test, expect } from '../lib/fixtures.mjs';
import { Roster } from '../pages/fanout.mjs';
import { TranscriptPage } from '../pages/transcript.mjs';

const FRAMES = path.join(ROOT, 'tests/fixtures/captures/claude-agent-acp-0.101.0/slow-wave/acp-frames.jsonl');
const LINES = readFileSync(FRAMES, 'utf8').split('\n').filter((l) => l.trim()).map((l) => `${l}\n`);
/** The frames up to the second launch (2 runs), and on to the fourth (4 runs). */
const TWO_LAUNCHED = 24;
const FOUR_LAUNCHED = 60;

test.use({ viewport: { width: 1280, height: 1200 } });

test('followed live, runs already going have no elapsed figure; one launched while the page looks counts from then',
  async ({ page, serve }, testInfo) => {
    const folder = testInfo.outputPath('recordings');
    mkdirSync(folder, { recursive: true });
    const file = path.join(folder, 'acp-frames.jsonl');
    writeFileSync(file, LINES.slice(0, TWO_LAUNCHED).join(''));
    const server = await serve(['--recordings', folder, '--poll-ms', '200']);
    const { tasks } = await server.json('api/v1/workflows/wf-recordings/snapshot');
    await TranscriptPage.openTask(page, server, tasks[0].id);
    const roster = new Roster(page);
    await expect(roster.items).toHaveCount(2);
    const before = await roster.items.evaluateAll((items) => items.map((i) => i.dataset.id));
    // Past a tick of the page's clock (5 s): still nothing made up.
    await page.waitForTimeout(6000);
    for (const id of before) {
      await expect(roster.item(id).locator('.roster-figures'), id).not.toContainText(/\d(ms|\.\ds|m \d\ds)/);
    }
    await expect(page.getByTestId('subagent-roster')).not.toContainText('0ms');

    appendFileSync(file, LINES.slice(TWO_LAUNCHED, FOUR_LAUNCHED).join(''));
    await expect(roster.items).toHaveCount(4);
    const arrived = (await roster.items.evaluateAll((items) => items.map((i) => i.dataset.id)))
      .filter((id) => !before.includes(id));
    expect(arrived).toHaveLength(2);
    for (const id of arrived) {
      // Counted from its arrival: a figure once a tick has passed, and it grows.
      const figures = roster.item(id).locator('.roster-figures');
      await expect(figures, id).toContainText(/\b\d+\.\ds\b/, { timeout: 12000 });
      const first = Number((await figures.textContent()).match(/(\d+\.\d)s/)[1]);
      await expect.poll(async () => Number(((await figures.textContent()).match(/(\d+\.\d)s/) ?? [])[1]),
        { timeout: 12000 }).toBeGreaterThan(first);
    }
    for (const id of before) {
      await expect(roster.item(id).locator('.roster-figures'), id).not.toContainText(/\d(ms|\.\ds|m \d\ds)/);
    }
    await expect(page.getByTestId('subagent-roster')).not.toContainText('0ms');
  });

test('an ACP file opened from disk shows no elapsed time for its cut-off runs', async ({ page, app, serveFile }) => {
  const src = serveFile('tests/fixtures/captures/claude-agent-acp-0.101.0/slow-wave/acp-frames.jsonl');
  await TranscriptPage.openFile(page, app, src, { debug: true });
  const roster = new Roster(page);
  const interrupted = roster.items.filter({ hasText: 'interrupted · no result recorded' });
  await expect(interrupted.first()).toBeVisible();
  for (const item of await interrupted.all()) {
    await expect(item.locator('.roster-figures')).not.toContainText(/\d(ms|\.\ds|m \d\ds)/);
  }
  await expect(page.getByTestId('subagent-roster')).not.toContainText('0ms');
});
