// Copilot CLI on the board (docs/behaviour.md §7 "Watching agents at work"):
// the captured slow wave (Copilot CLI 1.0.102, four background agents with
// scripted lifetimes, tests/fixtures/captures/) written into a watched
// session-state folder record by record, at the pace the CLI wrote it (its
// agents start 1.5 s apart: the board has a second for each step), while
// `taskview serve --recordings` watches. In the browser, the task is in the
// Working column while it works, its subagents running step with the scripted
// lifetimes (up, then counting down), and it moves to Done with none running.
import { appendFileSync, mkdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { captures } from '../lib/captures.mjs';
import { shiftTimes } from '../lib/home.mjs';
import { test, expect } from '../lib/fixtures.mjs';
import { eventually } from '../lib/poll.mjs';
import { recordFirstCard, StateBoardPage } from '../pages/board.mjs';

/** Written this many times faster than the CLI wrote it. */
const SPEED = 1;
const WAVE = captures('copilot-1.0.102').find((c) => c.name === 'slow-wave');

/** The subagents the script has running after each change, in order (`timeline.scripted`). */
function scriptedRunningCounts(manifest) {
  const changes = Object.entries(manifest.timeline.scripted).filter(([k]) => k !== 'main')
    .flatMap(([, span]) => [[span.start, 1], [span.end, -1]])
    .sort((a, b) => a[0] - b[0]);
  let running = 0;
  return changes.map(([, step]) => (running += step));
}

/**
 * Appends `lines` to `file` at their records' pace, `SPEED` times faster,
 * dated as if written now (the board judges a silent agent stalled by its
 * records' times).
 */
async function replay(lines, file) {
  const at = lines.map((l) => Date.parse(JSON.parse(l).timestamp));
  const known = at.filter((t) => !Number.isNaN(t));
  const start = Math.min(...known);
  const begun = Date.now();
  lines = lines.map((l) => shiftTimes(l, begun - start));
  let last = start;
  for (const [i, line] of lines.entries()) {
    if (!Number.isNaN(at[i])) last = at[i];
    const due = (last - start) / SPEED - (Date.now() - begun);
    if (due > 0) await new Promise((r) => setTimeout(r, due));
    appendFileSync(file, `${line}\n`);
  }
}

test('a Copilot CLI session written live: working, its subagents running step with the scripted lifetimes, then done',
  async ({ page, serve }, testInfo) => {
    test.setTimeout(90000);
    const lines = readFileSync(path.join(WAVE.project, 'events.jsonl'), 'utf8').split('\n').filter((l) => l.trim());
    const state = testInfo.outputPath('session-state');
    const session = path.join(state, WAVE.slug);
    mkdirSync(session, { recursive: true });
    const server = await serve(['--recordings', state, '--poll-ms', '100']);
    const board = await StateBoardPage.open(page, server);
    await board.board.waitFor();
    // Every distinct `column · subagents running` of the first task card, as it changes.
    await recordFirstCard(page);
    await replay(lines, path.join(session, 'events.jsonl'));
    const { tasks } = await eventually(async () => {
      const snapshot = await server.json('api/v1/workflows/wf-recordings/snapshot');
      return snapshot.tasks.length === 1 && snapshot.tasks[0].state === 'COMPLETED' && snapshot;
    }, 'the task to settle once the whole file is written');
    await expect(board.card(tasks[0].id).root, 'settled: done').toHaveAttribute('data-column', 'done');
    await expect(board.card(tasks[0].id).subagents, 'settled: none running')
      .toHaveAttribute('data-running', '0');
    const states = await page.evaluate(() => window.__board);
    const counts = states.map((s) => s.count).filter((n, i, all) => i === 0 || n !== all[i - 1]);
    expect(counts.slice(counts.findIndex((n) => n > 0)), `the chip steps: ${JSON.stringify(states)}`)
      .toEqual(scriptedRunningCounts(WAVE.manifest));
  });
