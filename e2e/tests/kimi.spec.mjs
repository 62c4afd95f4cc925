// Kimi Code's captures (docs/formats.md §9; tests/fixtures/captures/kimi-code-2.1.0/)
// as a user opens them: the workspace folder the CLI wrote under
// ~/.kimi-code/sessions dropped on the file view, one session's main wire by
// URL (its agents' wires fetched beside it), and on the board of
// `taskview serve --recordings` while the wires are being written. Every
// expectation comes from the capture's manifest (what the scenario scripted).
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, appendFileSync } from 'node:fs';
import path from 'node:path';
import { ServedFolder, ROOT } from '../lib/files.mjs';
import { toolCalls, WRAPPERS } from '../lib/captures.mjs';
import { dropFolder, filesUnder } from '../lib/drop.mjs';
import { test, expect } from '../lib/fixtures.mjs';
import { TranscriptPage } from '../pages/transcript.mjs';
import { recordFirstCard } from '../pages/board.mjs';
import { shiftTimes } from '../lib/home.mjs';

const CLI = 'kimi-code-2.1.0';
const DIALECT = 'Kimi Code session wire';
/** What Kimi Code wraps around a subagent's answer or a background end, never shown. */
const KIMI_WRAPPERS = ['<notification id=', 'resume_hint:', 'actual_subagent_type:', '[summary]'];
const STATUS_WORD = { completed: null, failed: 'failed', cancelled: 'cancelled' };

/**
 * The captured scenarios: `{name, manifest, workspace, slug}`, `workspace`
 * the folder of sessions Kimi Code wrote for the run's working directory
 * (`sessions/wd_<dir>_<hash>`), `slug` its name.
 */
function kimiCaptures() {
  const root = path.join(ROOT, 'tests/fixtures/captures', CLI);
  const { scenarios } = JSON.parse(readFileSync(path.join(root, 'manifest.json'), 'utf8'));
  return Object.entries(scenarios)
    .filter(([, s]) => s.status === 'captured')
    .map(([name]) => name)
    .sort()
    .map((name) => {
      const sessions = path.join(root, name, 'sessions');
      const slug = readdirSync(sessions).find((n) => n.startsWith('wd_'));
      return {
        name,
        manifest: JSON.parse(readFileSync(path.join(root, name, 'manifest.json'), 'utf8')),
        workspace: path.join(sessions, slug),
        slug,
      };
    });
}
const CAPTURES = kimiCaptures();

test.use({ viewport: { width: 1280, height: 1600 } });

/** No unreadable row and no wrapper text, in the whole transcript and on screen. */
async function expectClean(view, name) {
  const rows = await view.rowSummary();
  expect(rows.length, `${name}: rows`).toBeGreaterThan(1);
  expect(rows.filter((r) => r.trim().startsWith('unreadable')), `${name}: unreadable rows`).toEqual([]);
  for (const wrapper of [...WRAPPERS, ...KIMI_WRAPPERS]) {
    expect(rows.filter((r) => r.includes(wrapper)), `${name}: ${wrapper} in a row`).toEqual([]);
    await expect(view.scroller, `${name}: ${wrapper} on screen`).not.toContainText(wrapper);
  }
}

/**
 * Expects `face` to be what the manifest scripted for `agent`: Kimi Code's
 * type, the description, the status, one child per scripted tool call (the
 * agent's own wire), the chips, and a one-line summary of a finished run.
 */
function expectFace(face, agent, what) {
  expect(face.type, `${what}: type`).toBe(agent.type);
  expect(face.descriptionTitle, `${what}: description`).toBe(agent.description);
  // Cut off mid-run: the file view does not judge a still file here.
  if (agent.status === 'interrupted') return;
  expect(face.status, `${what}: status`).toBe(STATUS_WORD[agent.status]);
  const calls = Object.values(agent.actions ?? {}).reduce((a, b) => a + b, 0);
  expect(face.childCount, `${what}: child count`).toBe(toolCalls(calls));
  const chips = face.chips.map(([id]) => id);
  for (const chip of ['duration', 'model']) expect(chips, `${what}: ${chip}`).toContain(chip);
  expect(chips.includes('background'), `${what}: background`).toBe(agent.launch.startsWith('background'));
  if (agent.status === 'completed') {
    expect(chips, `${what}: tokens`).toContain('tokens');
    expect(face.summary, `${what}: summary`).toBeTruthy();
    expect(face.summary, `${what}: a summary, not its heading`).not.toBe('Summary');
  }
}

/** The faces of the top-level cards on screen, by their full description. */
async function facesByDescription(view) {
  const faces = await view.topLevelFaces();
  return new Map(faces.map(({ face }) => [face.descriptionTitle, face]));
}

/** Every scripted agent (Kimi Code 2.1.0 does not nest: all are top-level). */
const agentsOf = (capture) => capture.manifest.holds.agents;

for (const capture of CAPTURES) {
  test(`Kimi Code ${capture.name}, its workspace folder dropped: no unreadable row, no wrapper text, every card as scripted`,
    async ({ page, app }) => {
      const view = await new TranscriptPage(page).goto('view?debug', app);
      await dropFolder(view, capture.slug, filesUnder(capture.workspace));
      await expect(view.notShown).toBeVisible({ timeout: 20000 });
      await expect(view.dialect).toHaveText(DIALECT);
      await expectClean(view, capture.name);
      const cards = (await view.rowSummary()).filter((r) => / subagent: /.test(r));
      expect(cards.length, `${capture.name}: one card per scripted subagent`).toBe(capture.manifest.holds.subagents);
      const faces = await facesByDescription(view);
      const shown = agentsOf(capture).filter((a) => faces.has(a.description));
      if (agentsOf(capture).length) expect(shown.length, `${capture.name}: cards on screen`).toBeGreaterThan(0);
      for (const agent of shown) expectFace(faces.get(agent.description), agent, `${capture.name} ${agent.key}`);
    });
}

test('a Kimi Code main wire by URL fetches its agents\' wires beside it and reads like the dropped folder', async ({ page, app }, testInfo) => {
  const capture = CAPTURES.find((c) => c.name === 'parallel-wave');
  const folder = new ServedFolder(`${testInfo.workerIndex}-${testInfo.testId}`);
  cpSync(capture.workspace, folder.dir, { recursive: true });
  const main = filesUnder(capture.workspace).map(([rel]) => rel).find((rel) => rel.endsWith('agents/main/wire.jsonl'));
  try {
    const view = await TranscriptPage.openFile(page, app, `/e2e/${folder.name}/${main}`, { debug: true });
    await expect(view.notShown).toBeVisible({ timeout: 20000 });
    await expect(view.dialect).toHaveText(DIALECT);
    await expectClean(view, 'by URL');
    const faces = await facesByDescription(view);
    for (const agent of agentsOf(capture)) expectFace(faces.get(agent.description), agent, `by URL ${agent.key}`);
  } finally {
    folder.remove();
  }
});

/**
 * Every line of the capture's wires, in the order Kimi Code wrote them (by
 * each record's `time`, epoch ms; a line without one goes with the line
 * before it in its file): `{at, file, line}`, `at` in ms after the first.
 */
function replayPlan(workspace) {
  const writes = [];
  for (const [rel, text] of filesUnder(workspace)) {
    if (!rel.endsWith('wire.jsonl')) continue;
    let at = null;
    for (const line of text.split('\n').filter((l) => l.trim())) {
      const { time } = JSON.parse(line);
      if (typeof time === 'number') at = Math.max(at ?? time, time);
      writes.push({ at, file: rel, line });
    }
  }
  const start = Math.min(...writes.filter((w) => w.at !== null).map((w) => w.at));
  for (const w of writes) w.at = (w.at ?? start) - start;
  // Dated as if written now: the board judges a silent agent stalled by its records' times.
  const delta = Date.now() - start;
  for (const w of writes) w.line = shiftTimes(w.line, delta);
  return writes.sort((a, b) => a.at - b.at);
}

/** How many subagents the script has running at each change, in order (`timeline.scripted`). */
function scriptedCounts(manifest) {
  const changes = [];
  for (const [agent, span] of Object.entries(manifest.timeline.scripted)) {
    if (agent === 'main') continue;
    changes.push([span.start, 1], [span.end, -1]);
  }
  changes.sort((a, b) => a[0] - b[0]);
  let running = 0;
  return changes.map(([, step]) => (running += step));
}

test('a Kimi Code session being written is a task on the board: working, its subagents running stepping with the slow wave, then done', async ({ page, serve }, testInfo) => {
  test.setTimeout(60000);
  const capture = CAPTURES.find((c) => c.name === 'slow-wave');
  const recordings = testInfo.outputPath('sessions');
  mkdirSync(recordings, { recursive: true });
  const server = await serve(['--recordings', recordings, '--poll-ms', '100']);
  await page.goto(server.url);
  await expect(page.getByTestId('board')).toBeVisible();
  await recordFirstCard(page);

  // The wires written into the watched folder at their own pace.
  const begun = Date.now();
  for (const { at, file, line } of replayPlan(path.join(ROOT, 'tests/fixtures/captures', CLI, 'slow-wave', 'sessions', capture.slug))) {
    const wait = at - (Date.now() - begun);
    if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
    const target = path.join(recordings, capture.slug, file);
    if (!existsSync(path.dirname(target))) mkdirSync(path.dirname(target), { recursive: true });
    appendFileSync(target, `${line}\n`);
  }
  await expect(page.getByTestId('task-card')).toHaveAttribute('data-column', 'done', { timeout: 10000 });

  const seen = (await page.evaluate(() => window.__board)).filter((s) => s.state !== null);
  const shown = JSON.stringify(seen);
  expect(seen.slice(0, -1).every((s) => s.state === 'working'), shown).toBe(true);
  expect(seen.at(-1), shown).toMatchObject({ state: 'done', count: 0 });
  const counts = seen.map((s) => s.count).filter((n, i, all) => i === 0 || n !== all[i - 1]);
  expect(counts.slice(counts[0] === 0 ? 1 : 0), shown).toEqual(scriptedCounts(capture.manifest));
});
