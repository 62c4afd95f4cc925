// The live path (docs/behaviour.md §10), measured: a task of `size` messages served by
// `taskview serve --recordings`, opened at `/task/…` (a wide screen, so the
// roster opens beside the transcript), then 301 messages appended in batches
// of 10 every 300 ms: the bench grows the recording, the server tails it and
// sends each message as a `session.message.added` frame.
//
// Main-thread time comes from Chromium (CDP `Performance.getMetrics`:
// `TaskDuration` is the time the page's main thread spent in tasks, `ThreadTime`
// its CPU time), as deltas over the appends. On a shared machine the first
// grows with the load (the thread waits for a core inside its tasks; the load
// average is printed with each run); the second does not. The split by stage comes from the
// app's `?debug` stage clock (`window.__taskview.stages()`, src/live/stages.rs):
// wall time inside each stage of the live path; what the stages do not cover
// (Leptos effects patching the DOM, style, layout, paint, the socket's own
// work) is "DOM and the rest".
import { mkdtempSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { session } from '../lib/sessions.mjs';
import { startProfile, stopProfile } from './profile.mjs';

/** With `BENCH_PROFILE=1`, each append run also records a trace of the page's main thread (bench/profile.mjs). */
const PROFILE = Boolean(process.env.BENCH_PROFILE);

/** Messages appended, in batches of `BATCH` every `EVERY_MS`. */
export const APPENDED = 301;
export const BATCH = 10;
const EVERY_MS = 300;
/** What the search box holds while the roster is open (it matches every prompt). */
const QUERY = 'review the change';

/** The stages of the live path the app times, in the order printed. */
export const STAGES = ['decode', 'apply', 'rows', 'window', 'roster', 'search', 'clock', 'announce'];
const STAGE_NAMES = {
  decode: 'frame decode', apply: 'store and layout', rows: 'row views', window: 'list window', roster: 'roster',
  search: 'search', clock: 'clock', announce: 'announcer',
};

/**
 * A recording of `size` messages that grows: `grow(messages)` appends, written
 * beside the folder and renamed in, so the server never reads half a file.
 * The JSON of what is already there is kept, so a 100k file is not
 * serialized again per batch.
 */
export class GrowingRecording {
  constructor(dir, name, messages) {
    this.dir = dir;
    this.file = path.join(dir, name);
    this.parts = messages.map((m) => JSON.stringify(m));
    this.write();
  }

  write() {
    const draft = `${this.dir}.draft`;
    writeFileSync(draft, `{"messages":[${this.parts.join(',')}]}`);
    renameSync(draft, this.file);
  }

  grow(messages) {
    this.parts.push(...messages.map((m) => JSON.stringify(m)));
    this.write();
  }
}

async function metrics(cdp) {
  const { metrics: list } = await cdp.send('Performance.getMetrics');
  return Object.fromEntries(list.map(({ name, value }) => [name, value]));
}

/** The page's stage clock (ms and calls per stage) since it was last reset. */
const stages = (page) => page.evaluate(() => window.__taskview.stages?.() ?? {});

/**
 * How a client's page says it shows everything up to message `lastId` of
 * `total`: taskview's `?debug` hook counts its store; kandev's client (which
 * holds only its newest pages) has the message's anchor `msg-<id>` in the DOM.
 */
const SHOWS = {
  taskview: (page, total) => page.waitForFunction((n) => window.__taskview.memory().entries >= n, total,
    { timeout: 600000, polling: 50 }),
  kandev: (page, _total, lastId) => page.waitForFunction((id) => document.getElementById(`msg-${id}`), lastId,
    { timeout: 600000, polling: 50 }),
};

/**
 * Appends `APPENDED` messages to the open page's recording and measures the
 * page meanwhile: main-thread time, its split by stage (taskview's stage
 * clock), the batches the page applied, and its DOM afterwards. `client` is
 * `taskview` or `kandev` (whose page has no stage clock).
 */
export async function appendRun(page, recording, client = 'taskview') {
  const size = recording.parts.length;
  const ours = client === 'taskview';
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('Performance.enable', { timeDomain: 'timeTicks' });
  const live = session(APPENDED, `live-${Date.now()}-`, size + 10);
  if (ours) await page.evaluate(() => window.__taskview.resetStages?.());
  if (PROFILE) await startProfile(page);
  const before = await metrics(cdp);
  const started = Date.now();
  for (let at = 0; at < live.length; at += BATCH) {
    const due = started + (at / BATCH) * EVERY_MS;
    await new Promise((r) => setTimeout(r, Math.max(0, due - Date.now())));
    recording.grow(live.slice(at, at + BATCH));
  }
  await SHOWS[client](page, size + APPENDED, live.at(-1).id);
  // Let the last batch render and the roster's refresh run.
  await page.waitForTimeout(600);
  const after = await metrics(cdp);
  const profile = PROFILE ? await stopProfile(page, `${client}-${size}-${Date.now()}`) : null;
  const load = loadavg()[0];
  const split = ours ? await stages(page) : {};
  const nodes = await page.evaluate(() => document.getElementsByTagName('*').length);
  const roster = await page.evaluate(() => document.querySelectorAll('[data-testid=roster-item]').length);
  await cdp.detach();
  const delta = (key) => (after[key] - before[key]) * 1000;
  return {
    appended: APPENDED,
    taskMs: delta('TaskDuration'),
    cpuMs: delta('ThreadTime'),
    scriptMs: delta('ScriptDuration'),
    layoutMs: delta('LayoutDuration') + delta('RecalcStyleDuration'),
    stages: split,
    nodes,
    rosterRows: roster,
    load,
    profile,
  };
}

/** Opens the task of the recording, waits until it holds all of it, sets the panels for `mode`. */
export async function openTask(newPage, server, task, size, mode) {
  const page = await newPage();
  await page.goto(`${server.url}task/${task}?debug`);
  await page.waitForFunction((n) => (window.__taskview?.memory().entries ?? 0) >= n, size, { timeout: 900000, polling: 200 });
  const toggle = page.getByTestId('roster-toggle');
  const open = (await toggle.getAttribute('aria-expanded')) === 'true';
  if (open !== (mode === 'open')) await toggle.click();
  if (mode === 'open') {
    const search = page.getByTestId('transcript-search');
    await search.fill(QUERY);
    await page.getByTestId('search-count').filter({ hasText: /match/ }).waitFor();
    // The reader reads on: a blinking caret would paint a frame every 500 ms.
    await search.blur();
  }
  await page.waitForTimeout(1000);
  return page;
}

/**
 * The append run at each of `sizes`, with the roster open and a search
 * active (`open`), and with the roster closed and no search (`closed`).
 * `serve(flags, startMs)` starts a server the caller stops; `newPage()` opens a
 * page in a context of its own at a wide viewport. Returns one result per
 * size and mode: `{size, mode, perMessageMs, cpuPerMessageMs, nodes, ...}`.
 */
export async function liveAppends({ serve, newPage, sizes }) {
  console.log(`== live appends: ${APPENDED} messages in batches of ${BATCH} every ${EVERY_MS} ms into an open /task/… page`);
  const results = [];
  for (const size of sizes) {
    const dir = mkdtempSync(path.join(tmpdir(), 'taskview-live-'));
    try {
      const recording = new GrowingRecording(dir, `live-${size}.json`, session(size));
      const server = await serve(['--recordings', dir, '--poll-ms', '100'], 600000);
      if (size === sizes[0]) {
        // The first page compiles the wasm's optimized code; later pages
        // start with it cached. A run to warm up, not counted.
        const page = await openTask(newPage, server, `rec-live-${size}-json`, recording.parts.length, 'open');
        await appendRun(page, recording);
        await page.context().close();
      }
      for (const mode of ['open', 'closed']) {
        const held = recording.parts.length;
        const page = await openTask(newPage, server, `rec-live-${size}-json`, held, mode);
        const run = await appendRun(page, recording);
        await page.context().close();
        const result = { ...run, size, held, mode, perMessageMs: run.taskMs / APPENDED, cpuPerMessageMs: run.cpuMs / APPENDED };
        results.push(result);
        printRun(result);
      }
      await server.stop();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }
  return results;
}

/** taskview's main-thread time of an append run `r` per batch, by stage of the live path. */
export function printStages(r) {
  const batches = Math.ceil(APPENDED / BATCH);
  const perBatch = (ms) => (ms / batches).toFixed(2).padStart(6);
  const timed = STAGES.reduce((sum, s) => sum + (r.stages[s]?.ms ?? 0), 0);
  const parts = STAGES.filter((s) => r.stages[s]).map((s) => `${STAGE_NAMES[s]} ${perBatch(r.stages[s].ms)}`);
  parts.push(`DOM and the rest ${perBatch(r.taskMs - timed)} (of which script ${perBatch(Math.max(0, r.scriptMs - timed))}, ` +
    `style and layout ${perBatch(r.layoutMs)})`);
  console.log(`        ms per batch of ${BATCH}: ${parts.join(', ')}; total ${perBatch(r.taskMs)}`);
}

function printRun(r) {
  const batches = Math.ceil(APPENDED / BATCH);
  const label = r.mode === 'open' ? 'roster open, search active' : 'roster closed, no search';
  console.log(`${String(r.size).padStart(6)} messages (${r.held} held), ${label}: ${r.perMessageMs.toFixed(2)} ms main-thread time ` +
    `per appended message, ${r.cpuPerMessageMs.toFixed(2)} ms of it on the CPU; DOM ${r.nodes} elements ` +
    `(${r.rosterRows} roster rows); load average ${r.load.toFixed(1)} on ${cpus().length} cores`);
  printStages(r);
  // The server re-reads the whole recording on each change: when that takes
  // longer than the bench's interval it sends two batches as one, and the
  // page applies fewer updates than the bench wrote batches.
  console.log(`        the page applied ${r.stages.apply?.calls ?? 0} updates for the ${batches} batches written`);
}
