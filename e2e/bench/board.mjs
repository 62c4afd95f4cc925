// The board of thousands of sessions (docs/board.md, docs/behaviour.md §5),
// for `make bench` (bench.mjs prints it; `BENCH_ONLY=board` alone): homes of
// 1,000 and 10,000 Claude Code sessions made from the captures' conversation
// records (lib/many.mjs), each served by `taskview serve --recordings`:
//
// - the server: until the board lists every session, and until every card
//   has its facts (the pass that reads once, whole, each session nobody
//   opened), with the time per session;
// - the page: from the snapshot's answer (its `responseEnd`, Resource
//   Timing) to the first frame painted after the first card is in the DOM,
//   the median of `LOADS` loads; the elements in the page;
// - a change: a record appended to one session `APPENDS` times; the page's
//   main-thread time per change in the stages the app times (`?debug`:
//   `apply` is the store, the layout and the kept board; `board` the board's
//   reads: its counts, its columns' windows, its cards' words), at 1,000 and
//   at 10,000 sessions, and their ratio: a change costs its task, not the
//   board.
import { appendFileSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { manySessions } from '../lib/many.mjs';

const SIZES = (process.env.BOARD_SIZES ?? '1000,10000').split(',').map(Number);
const LOADS = 3;
const APPENDS = 20;
const APPEND_EVERY_MS = 400;

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

/** Waits until `check()` holds; returns the ms it took from `from`. */
async function until(check, from, what, timeoutMs = 900000) {
  for (;;) {
    if (await check()) return Date.now() - from;
    if (Date.now() - from > timeoutMs) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

/** Records, before the app runs, when the first card landed and the frame after it. */
function watchFirstCard() {
  new MutationObserver((_, observer) => {
    if (document.querySelector('[data-testid=task-card]')) {
      observer.disconnect();
      window.__firstCard = performance.now();
      requestAnimationFrame(() => setTimeout(() => { window.__firstPaint = performance.now(); }));
    }
  }).observe(document, { childList: true, subtree: true });
}

/** One load of the board: ms from the snapshot's answer to the first painted card. */
async function load(newPage, server) {
  const page = await newPage();
  await page.addInitScript(watchFirstCard);
  await page.goto(`${server.url}board/wf-recordings?debug`);
  await page.waitForFunction(() => window.__firstPaint !== undefined, null, { timeout: 120000 });
  const timing = await page.evaluate(() => {
    const snapshot = performance.getEntriesByType('resource').find((e) => e.name.includes('/snapshot'));
    return { answered: snapshot?.responseEnd ?? NaN, painted: window.__firstPaint };
  });
  return { page, ms: timing.painted - timing.answered };
}

/** The stages' ms per change over `APPENDS` records appended to `file`. */
async function changes(page, file) {
  await page.evaluate(() => window.__taskview.resetStages());
  const template = readFileSync(file, 'utf8').split('\n').filter((l) => l.includes('"type":"assistant"')).at(-1);
  for (let i = 0; i < APPENDS; i++) {
    const record = JSON.parse(template);
    record.uuid = `bench-${i}-${record.uuid}`;
    record.timestamp = new Date().toISOString();
    appendFileSync(file, `${JSON.stringify(record)}\n`);
    await new Promise((r) => setTimeout(r, APPEND_EVERY_MS));
  }
  await new Promise((r) => setTimeout(r, 1500));
  const stages = await page.evaluate(() => window.__taskview.stages());
  const per = (s) => (stages[s]?.ms ?? 0) / APPENDS;
  return { apply: per('apply'), board: per('board'), calls: stages.board?.calls ?? 0 };
}

/** Measures a home of `size` sessions. */
async function measure({ serve, newPage }, size) {
  const dir = mkdtempSync(path.join(tmpdir(), 'taskview-board-bench-'));
  try {
    const written = Date.now();
    const home = manySessions(dir, size);
    const writeMs = Date.now() - written;
    const started = Date.now();
    const server = await serve(['--recordings', dir, '--poll-ms', '200']);
    const snapshot = () => server.json('api/v1/workflows/wf-recordings/snapshot');
    const listed = await until(async () => (await snapshot()).tasks.length === size, started, 'every session listed');
    const carded = await until(async () => (await snapshot()).tasks.every((t) => t.session_facts), started, 'every card');
    const loads = [];
    for (let i = 0; i < LOADS; i++) {
      loads.push(await load(newPage, server));
      if (i < LOADS - 1) await loads.at(-1).page.context().close();
    }
    const { page } = loads.at(-1);
    const elements = await page.evaluate(() => document.getElementsByTagName('*').length);
    const change = await changes(page, home.files[1]);
    await page.context().close();
    await server.stop();
    return { size, writeMs, listed, carded, paint: median(loads.map((l) => l.ms)), elements, change };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Runs the board part and prints it. */
export async function boardAtScale(env) {
  console.log(`== the board of many sessions (load average ${loadavg()[0].toFixed(1)})`);
  const results = [];
  for (const size of SIZES) {
    const r = await measure(env, size);
    results.push(r);
    console.log(`${String(size).padStart(6)} sessions (written in ${r.writeMs} ms): the server listed them in ${r.listed} ms, ` +
      `every card's facts in ${r.carded} ms (${(r.carded / size).toFixed(2)} ms a session); ` +
      `first card painted ${r.paint.toFixed(0)} ms after the snapshot's answer (median of ${LOADS}); ` +
      `${r.elements} elements; a change: apply ${r.change.apply.toFixed(2)} ms, board reads ` +
      `${r.change.board.toFixed(2)} ms (${r.change.calls} reads)`);
  }
  if (results.length === 2) {
    const [a, b] = results;
    const ratio = (x, y) => (y > 0 ? `${(x / y).toFixed(2)}x` : 'n/a');
    console.log(`ratios ${b.size}/${a.size}: a change's apply ${ratio(b.change.apply, a.change.apply)}, ` +
      `its board reads ${ratio(b.change.board, a.change.board)}, elements ${ratio(b.elements, a.elements)}, ` +
      `first paint ${ratio(b.paint, a.paint)}, card facts per session ${ratio(b.carded / b.size, a.carded / a.size)}`);
  }
}
