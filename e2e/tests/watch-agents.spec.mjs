// Watching agents at work (docs/behaviour.md §7): the real Claude Code CLI (pinned in
// captures/pins, installed into the cache by scripts/setup.sh) runs the slow
// wave (captures/scenarios/slow-wave.mjs) against the scripted model server on
// 127.0.0.1, writing into a HOME whose ~/.claude/projects a `taskview serve
// --recordings` started before it watches. The board, read in the browser as
// it changes, must follow the run: the task appears, is in the Working column while
// the agent or a subagent works, its chip steps with the scripted lifetimes,
// each change at most 2 s after the model server made it happen, and the
// task moves to Done once the run is over.
import { spawn } from 'node:child_process';
import { mkdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { test, expect } from '../lib/fixtures.mjs';
import { ROOT } from '../lib/files.mjs';
import { recordFirstCard } from '../pages/board.mjs';

/** The most a board change may trail what caused it (docs/formats.md §8). */
const MAX_LAG_MS = 2000;

/** Runs one scenario of the capture harness with `home` as HOME; resolves with its manifest. */
function runScenario(home, manifestPath) {
  const args = ['captures/run.mjs', '--cli', 'claude-code', '--scenario', 'slow-wave',
    '--home', home, '--manifest', manifestPath, '--quiet'];
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (d) => { output += d; });
    child.stderr.on('data', (d) => { output += d; });
    child.on('error', reject);
    child.on('exit', (code) => (code === 0
      ? resolve(JSON.parse(readFileSync(manifestPath, 'utf8')))
      : reject(new Error(`the capture harness exited with ${code}:\n${output}`))));
  });
}

/**
 * The scripted run as the model server played it: every moment the number of
 * running subagents changed (a launch reply sent, a last reply sent), in
 * epoch ms, with the number running after it.
 */
function scriptedSteps(manifest) {
  const origin = manifest.timeline.origin;
  const changes = [];
  for (const [agent, at] of Object.entries(manifest.timeline.observed)) {
    if (agent === 'main') continue;
    changes.push({ t: origin + at.launched, step: 1 }, { t: origin + at.ended, step: -1 });
  }
  changes.sort((a, b) => a.t - b.t);
  let running = 0;
  return changes.map(({ t, step }) => ({ t, count: (running += step) }));
}

test('a real Claude Code run: the board follows its slow wave live', async ({ page, serve }, testInfo) => {
  test.setTimeout(180000);
  const home = testInfo.outputPath('home');
  const projects = path.join(home, '.claude', 'projects');
  mkdirSync(projects, { recursive: true });
  const server = await serve(['--recordings', projects, '--poll-ms', '200']);
  await page.goto(server.url);
  await expect(page.getByTestId('board')).toBeVisible();
  await recordFirstCard(page);

  const manifest = await runScenario(home, testInfo.outputPath('manifest.json'));
  expect(manifest.status, JSON.stringify(manifest.problems)).toBe('captured');
  await expect(page.getByTestId('task-card')).toHaveAttribute('data-column', 'done', { timeout: MAX_LAG_MS + 3000 });
  const board = await page.evaluate(() => window.__board);
  const seen = board.filter((s) => s.state !== null);
  const shown = JSON.stringify(board);

  // The task appeared working (docs/board.md), and stayed so until the run was over.
  expect(seen.length, shown).toBeGreaterThan(0);
  expect(seen.slice(0, -1).every((s) => s.state === 'working'), shown).toBe(true);
  expect(seen.at(-1), shown).toMatchObject({ state: 'done', count: 0 });

  // The chip took every step of the script, in order, none skipped or repeated.
  const steps = scriptedSteps(manifest);
  const counts = seen.map((s) => s.count).filter((n, i, all) => i === 0 || n !== all[i - 1]);
  expect(counts.slice(counts[0] === 0 ? 1 : 0), shown).toEqual(steps.map((s) => s.count));

  // Each step showed at most MAX_LAG_MS after the model server made it happen.
  const changes = seen.filter((s, i) => i > 0 && s.count !== seen[i - 1].count);
  const lags = changes.map((s, i) => s.t - steps[i].t);
  testInfo.annotations.push({ type: 'lag (ms)', description: lags.join(', ') });
  for (const lag of lags) expect(lag, `lags ${lags} in ${shown}`).toBeLessThanOrEqual(MAX_LAG_MS);
  // And it settled at most MAX_LAG_MS after the main agent's last reply.
  const mainEnded = manifest.timeline.origin + manifest.timeline.observed.main.ended;
  expect(seen.at(-1).t - mainEnded, shown).toBeLessThanOrEqual(MAX_LAG_MS);
});
