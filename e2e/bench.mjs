// Browser benchmark (`make bench`, never a test). Everything is printed from
// this one run, as ratios and sizes:
//
// 1. Files: generated sessions of 100, 1,000, 10,000 and 100,000 messages
//    (about 45 MB) opened in `/view?src=`: time to first rows (the file opens
//    progressively), time to the whole file, DOM nodes, the cost of appending
//    100 live messages (pushed one at a time through the embed postMessage
//    contract), and the tab's memory: wasm memory, JS heap (after a GC) and
//    the renderer's peak resident size. The 100k file is also scrolled
//    end to end. (Search is measured by the criterion bench of core.)
// 2. Live sessions, tail-first: recordings of 100 and 100,000 messages served
//    by `taskview serve --recordings`, opened at `/task/…`: first rows (the
//    newest page), the backfill of older pages, the requests made.
// 3. Memory while streaming: the `stream` scenario sends 20,000 messages into
//    an open `/task/…` page; memory at 1k, 10k and 20k messages.
// 4. Endurance: the same 20,000 messages with the socket dropped every 500
//    frames (`--drop-ws-every`, so the page reconnects and merges ~50 times):
//    wasm memory and JS heap every 2,000 messages, the growth per message in
//    each half of the run and against the run without drops (a leak per
//    reconnect would show as a larger slope), and whether every message
//    arrived.
// 5. Timeline (docs/user-guide.md "The Timeline"): a 100,000-message fan-out with 5,000 subagent
//    runs opened in `/view?src=`; the time from the Timeline toggle to its
//    first bar painted (best of 3, the closed panel keeping nothing), and the
//    DOM elements the open panel adds; and a 2,000-message fan-out of 40
//    runs, its timeline open, fed one live message a frame for 240 frames
//    (new runs among them): the frames' intervals, against the same with it
//    closed.
//
// 6. Live appends (bench/live.mjs): 301 messages appended in batches of 10
//    every 300 ms to open `/task/…` pages of 1k, 10k and 100k messages, the
//    roster open (and a search active) or closed: main-thread time per
//    appended message, split by stage, and the DOM afterwards.
// 7. Against kandev's web client (bench/compare.mjs, bench/kandev.mjs,
//    bench/table.mjs), when `../shared/anchors/kandev-web-dist.tgz` is there
//    (else it says it skipped the comparison): both clients on the same server,
//    session and frames in this run: the append run of part 6 at 10k messages
//    with the server joining a change's envelopes into one frame and with one
//    frame per event (as kandev's backend sends), first rows warm and cold, the
//    app's bytes, the DOM. No figure is carried over from an earlier run.
// 8. The board of many sessions (bench/board.mjs): homes of 1,000 and 10,000
//    sessions: the server's listing and card pass, the first card painted after
//    the snapshot's answer, the elements in the page, and the page's time per
//    change at both sizes (BOARD_SIZES=10000 for one).
//
// Shares the server, the served files and the browser launch of the e2e
// fixtures (lib/).
import { chromium } from '@playwright/test';
import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { LAUNCH_OPTIONS } from './lib/browser.mjs';
import { ServedFolder } from './lib/files.mjs';
import { startServer } from './lib/server.mjs';
import { fanOut, session } from './lib/sessions.mjs';
import { liveAppends } from './bench/live.mjs';
import { printComparison } from './bench/table.mjs';
import { coldVisit } from './bench/cold.mjs';
import { boardAtScale } from './bench/board.mjs';
import { compareLive } from './bench/compare.mjs';
import { KandevClient, kandevAvailable } from './bench/kandev.mjs';

const FILE_SIZES = [100, 1000, 10000, 100000];
const LIVE_SIZES = [100, 100000];
const STREAMED = 20000;
const VIEWPORT = { viewport: { width: 1200, height: 900 } };
const MB = (bytes) => `${(bytes / 1048576).toFixed(1)} MB`;
const ratio = (a, b) => `${(a / b).toFixed(2)}x`;

const browser = await chromium.launch(LAUNCH_OPTIONS);
const servers = [];
const served = new ServedFolder('bench');

/** A server stopped when the benchmark ends. */
async function serve(flags, startMs) {
  const server = await startServer(flags, { startMs });
  servers.push(server);
  return server;
}

/** A page in a context of its own. */
async function newPage() {
  return (await browser.newContext(VIEWPORT)).newPage();
}

/** Closes a page and its context. */
const closePage = (page) => page.context().close();

/** The peak and current resident size of the renderer processes started under `rootPid`. */
function rendererMemory(rootPid) {
  const parent = new Map();
  for (const pid of readdirSync('/proc').filter((p) => /^\d+$/.test(p))) {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      parent.set(Number(pid), Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]));
    } catch { /* gone */ }
  }
  const descends = (pid) => { for (let p = pid; p > 1; p = parent.get(p) ?? 0) if (p === rootPid) return true; return false; };
  let peak = 0, now = 0;
  for (const pid of parent.keys()) {
    try {
      if (!descends(pid) || !readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes('--type=renderer')) continue;
      const status = readFileSync(`/proc/${pid}/status`, 'utf8');
      const kb = (key) => Number(status.match(new RegExp(`${key}:\\s+(\\d+)`))?.[1] ?? 0) * 1024;
      peak = Math.max(peak, kb('VmHWM'));
      now = Math.max(now, kb('VmRSS'));
    } catch { /* gone */ }
  }
  return { peak, now };
}

/** The page's memory: wasm memory and store size (`?debug` hook), JS heap after a GC, renderer. */
async function tabMemory(page) {
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('HeapProfiler.collectGarbage');
  const { usedSize } = await cdp.send('Runtime.getHeapUsage');
  await cdp.detach();
  const hook = await page.evaluate(() => window.__taskview.memory());
  // The browser is a child of this process; one page is open at a time.
  return { ...hook, heap: usedSize, renderer: rendererMemory(process.pid) };
}

const describeMemory = (m) =>
  `wasm ${MB(m.wasmBytes)}, JS heap ${MB(m.heap)}, renderer ${MB(m.renderer.now)} (peak ${MB(m.renderer.peak)}), ` +
  `${m.heldRows} rows holding a trigger`;

/** A page that records when the first row and each progress value appear. */
async function instrumentedPage() {
  const page = await newPage();
  await page.addInitScript(() => {
    window.__progress = [];
    new MutationObserver(() => {
      if (window.__firstRows === undefined && document.querySelector('.row-slot')) window.__firstRows = performance.now();
      const bar = document.querySelector('[role=progressbar]');
      if (bar && window.__progress.at(-1) !== bar.getAttribute('aria-valuenow')) window.__progress.push(bar.getAttribute('aria-valuenow'));
    }).observe(document, { childList: true, subtree: true, attributes: true });
  });
  return page;
}

/** Pushes `messages` one at a time through postMessage; ms until the last row shows. */
function appendLive(page, messages) {
  return page.evaluate(async (messages) => {
    const start = performance.now();
    for (const m of messages) window.postMessage({ taskview: 'append', messages: [m] }, '*');
    const last = `msg-${messages[messages.length - 1].id}`;
    while (!document.getElementById(last)) {
      if (performance.now() > start + 120000) return NaN;
      await new Promise((r) => setTimeout(r, 5));
    }
    return performance.now() - start;
  }, messages);
}

/** Opens `src` in `/view`; when its first row showed and when it was read whole. */
async function openFile(server, src) {
  const page = await instrumentedPage();
  await page.goto(`${server.url}view?src=${encodeURIComponent(src)}&debug`);
  await page.waitForFunction(() => window.__firstRows !== undefined, null, { timeout: 300000 });
  await page.waitForFunction(() => document.querySelector('[data-testid=dialect]')
    && !document.querySelector('[role=progressbar]'), null, { timeout: 300000, polling: 20 });
  const loaded = await page.evaluate(() => performance.now());
  const { firstRows, steps } = await page.evaluate(() => ({ firstRows: window.__firstRows, steps: window.__progress.length }));
  return { page, firstRows, loaded, steps };
}

async function files(server) {
  console.log('== files in /view?src= (progressive opening; times are the best of 3 loads up to 10k, one at 100k)');
  const results = [];
  for (const size of FILE_SIZES) {
    const text = JSON.stringify({ messages: session(size) });
    const src = served.add({ name: `bench-${size}.json`, text });
    const loads = [];
    for (let run = size < 100000 ? 3 : 1; run > 0; run--) {
      loads.push(await openFile(server, src));
      if (run > 1) await closePage(loads.at(-1).page);
    }
    const { page, steps } = loads.at(-1);
    const firstRows = Math.min(...loads.map((l) => l.firstRows));
    const loaded = Math.min(...loads.map((l) => l.loaded));
    const nodes = await page.evaluate(() => document.getElementsByTagName('*').length);
    let scrolled = '';
    if (size === FILE_SIZES.at(-1)) {
      // Scroll from top to bottom in ten jumps, letting each position render.
      const shown = [];
      for (let i = 0; i <= 10; i++) {
        shown.push(await page.evaluate(async (f) => {
          const s = document.querySelector('[data-testid=transcript]');
          s.scrollTop = (s.scrollHeight - s.clientHeight) * f;
          await new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)));
          return document.querySelectorAll('.row-slot').length;
        }, i / 10));
      }
      scrolled = `; scrolled end to end in 10 jumps, ${Math.min(...shown)}–${Math.max(...shown)} rows rendered at each`;
    }
    await page.evaluate(() => { const s = document.querySelector('[data-testid=transcript]'); s.scrollTop = s.scrollHeight; });
    await page.waitForTimeout(300);
    // Three rounds of 100 live messages; the best round counts.
    const rounds = [];
    for (let round = 0; round < 3; round++) rounds.push(await appendLive(page, session(100, `live${round}-`, size + 10 + round * 100)));
    const append = Math.min(...rounds);
    const memory = await tabMemory(page);
    results.push({ size, firstRows, loaded, nodes, append, memory });
    console.log(`${String(size).padStart(6)} messages (${MB(text.length)}): first rows ${firstRows.toFixed(0)} ms, ` +
      `whole file ${loaded.toFixed(0)} ms (${steps} progress steps), DOM nodes ${nodes}, ` +
      `append 100 live messages ${append.toFixed(0)} ms (best of ${rounds.map((r) => r.toFixed(0)).join(', ')})${scrolled}`);
    console.log(`        memory: ${describeMemory(memory)}`);
    await closePage(page);
  }
  const by = (n) => results.find((r) => r.size === n);
  console.log(`ratios: first rows 10k/100 ${ratio(by(10000).firstRows, by(100).firstRows)} (docs/behaviour.md §10: at most 2x), ` +
    `100k/100 ${ratio(by(100000).firstRows, by(100).firstRows)}; append 100 live messages 100k/1k ` +
    `${ratio(by(100000).append, by(1000).append)}; DOM nodes 100k/100 ${ratio(by(100000).nodes, by(100).nodes)}`);
  const peak = by(100000).memory.renderer.peak;
  console.log(`100k-message file: renderer peak ${MB(peak)} (${peak < 1 << 30 ? 'under' : 'OVER'} 1 GB)`);
}

async function tailFirst() {
  console.log('== live sessions in /task/… (newest page first, older pages in the background)');
  const dir = mkdtempSync(path.join(tmpdir(), 'taskview-bench-'));
  try {
    for (const size of LIVE_SIZES) {
      writeFileSync(path.join(dir, `live-${size}.json`), JSON.stringify({ messages: session(size) }));
    }
    const server = await serve(['--recordings', dir], 300000);
    const results = [];
    for (const size of LIVE_SIZES) {
      const page = await instrumentedPage();
      const requests = [];
      page.on('request', (r) => { if (r.url().includes('/api/')) requests.push(new URL(r.url()).pathname + new URL(r.url()).search); });
      const start = Date.now();
      await page.goto(`${server.url}task/rec-live-${size}-json?debug`);
      await page.waitForFunction(() => window.__firstRows !== undefined, null, { timeout: 120000 });
      const firstRows = await page.evaluate(() => window.__firstRows);
      await page.waitForFunction((n) => window.__taskview.memory().entries >= n, size, { timeout: 600000, polling: 100 });
      const backfill = Date.now() - start;
      const memory = await tabMemory(page);
      const pages = requests.filter((r) => r.includes('/messages')).length;
      const count = (part) => requests.filter((r) => r.includes(part)).length;
      results.push({ size, firstRows });
      console.log(`${String(size).padStart(6)} messages: first rows ${firstRows.toFixed(0)} ms, all ${size} held after about ` +
        `${backfill} ms (${pages} message pages); requests: task ${count('/tasks/')}, first page ${count('sort=desc') - count('before=')}, ` +
        `turns ${count('/turns')}`);
      console.log(`        memory: ${describeMemory(memory)}`);
      await closePage(page);
    }
    console.log(`ratio: first rows ${LIVE_SIZES.at(-1)}/${LIVE_SIZES[0]} ${ratio(results[1].firstRows, results[0].firstRows)} (target ≤ 2x)`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

async function streaming() {
  console.log(`== memory while ${STREAMED} messages stream into an open /task/… page`);
  const server = await serve(['--scenario', 'stream', '--messages', String(STREAMED),
    '--interval-ms', '1', '--start-delay-ms', '3000']);
  const page = await newPage();
  await page.goto(`${server.url}task/task-stream?debug`);
  const seen = [];
  for (const at of [1000, 10000, STREAMED]) {
    await page.waitForFunction((n) => (window.__taskview?.memory().entries ?? 0) >= n, at, { timeout: 600000, polling: 50 });
    const memory = await tabMemory(page);
    seen.push({ at, memory });
    console.log(`${String(at).padStart(6)} messages: ${describeMemory(memory)}`);
  }
  const [first, , last] = seen;
  const perMessage = (key) => (last.memory[key] - first.memory[key]) / (last.at - first.at);
  console.log(`growth from 1k to ${STREAMED / 1000}k messages: wasm ${perMessage('wasmBytes').toFixed(0)} B/message, ` +
    `JS heap ${perMessage('heap').toFixed(0)} B/message; rows holding a trigger ${first.memory.heldRows} → ${last.memory.heldRows}`);
  await closePage(page);
  return { wasmBytes: perMessage('wasmBytes'), heap: perMessage('heap') };
}

/** Bytes per message between samples `a` and `b` (`{at, memory}`). */
const slope = (a, b, key) => (b.memory[key] - a.memory[key]) / (b.at - a.at);

async function endurance(plain) {
  const every = 500;
  console.log(`== endurance: ${STREAMED} messages into one open page, the socket dropped every ${every} frames`);
  const server = await serve(['--scenario', 'stream', '--messages', String(STREAMED),
    '--interval-ms', '2', '--start-delay-ms', '3000', '--drop-ws-every', String(every)]);
  const page = await newPage();
  await page.goto(`${server.url}task/task-stream?debug`);
  const seen = [];
  const started = Date.now();
  for (let at = 2000; at <= STREAMED; at += 2000) {
    await page.waitForFunction((n) => (window.__taskview?.memory().entries ?? 0) >= n, at, { timeout: 900000, polling: 100 });
    const memory = await tabMemory(page);
    seen.push({ at, memory });
    const opens = await page.evaluate(() => window.__taskview.opens());
    console.log(`${String(at).padStart(6)} messages, ${String(opens).padStart(3)} socket opens, ` +
      `${((Date.now() - started) / 1000).toFixed(0).padStart(4)} s: wasm ${MB(memory.wasmBytes)}, JS heap ${MB(memory.heap)}`);
  }
  await page.waitForFunction(() => document.body.textContent.includes('Stream complete:'), null, { timeout: 120000 })
    .catch(() => {});
  const entries = await page.evaluate(() => window.__taskview.memory().entries);
  const first = seen[0];
  const mid = seen[Math.floor(seen.length / 2) - 1];
  const last = seen.at(-1);
  for (const [key, name] of [['wasmBytes', 'wasm'], ['heap', 'JS heap']]) {
    const [early, late] = [slope(first, mid, key), slope(mid, last, key)];
    console.log(`${name}: ${early.toFixed(0)} B/message from ${first.at / 1000}k to ${mid.at / 1000}k, ` +
      `${late.toFixed(0)} B/message from ${mid.at / 1000}k to ${last.at / 1000}k (late/early ${ratio(late, Math.max(early, 1))})` +
      (plain ? `; with drops vs without: ${ratio(slope(first, last, key), Math.max(plain[key], 1))}` : ''));
  }
  const opens = await page.evaluate(() => window.__taskview.opens());
  console.log(`messages in the page's store: ${entries} of ${STREAMED} streamed; ${opens - 1} reconnects`);
  await closePage(page);
}

async function timeline(server) {
  console.log('== the Timeline of a 100,000-message fan-out with 5,000 runs in /view?src=');
  const src = served.add({ name: 'bench-fan-out.json', text: JSON.stringify(fanOut(100000, 5000, 3).messages) });
  const { page } = await openFile(server, src);
  const before = await page.evaluate(() => document.getElementsByTagName('*').length);
  const opens = [];
  let added = 0;
  for (let run = 0; run < 3; run++) {
    opens.push(await page.evaluate(() => new Promise((resolve) => {
      const start = performance.now();
      document.querySelector('[data-testid=timeline-toggle]').click();
      const painted = () => {
        if (document.querySelector('[data-testid=timeline-bar]')) requestAnimationFrame(() => resolve(performance.now() - start));
        else requestAnimationFrame(painted);
      };
      requestAnimationFrame(painted);
    })));
    added = await page.evaluate(() => document.getElementsByTagName('*').length) - before;
    await page.getByTestId('timeline-toggle').click();
    await page.getByTestId('timeline').waitFor({ state: 'hidden' });
  }
  console.log(`open to first bar painted ${Math.min(...opens).toFixed(0)} ms (best of ${opens.map((o) => o.toFixed(0)).join(', ')}; ` +
    `the aim: under 1 s), the open panel adds ${added} DOM elements to the page's ${before}`);
  await closePage(page);
  const forty = served.add({ name: 'bench-forty.json', text: JSON.stringify(fanOut(2000).messages) });
  for (const open of [false, true]) {
    const { page: p } = await openFile(server, forty);
    if (open) {
      await p.getByTestId('timeline-toggle').click();
      await p.getByTestId('timeline-bar').first().waitFor();
    }
    const frames = await p.evaluate((messages) => new Promise((resolve) => {
      const times = [];
      const frame = (now) => {
        times.push(now);
        const m = messages[times.length - 1];
        if (m) {
          window.postMessage({ taskview: 'append', messages: [m] }, '*');
          requestAnimationFrame(frame);
        } else resolve(times.slice(1).map((t, i) => t - times[i]));
      };
      requestAnimationFrame(frame);
    }), session(240, 'fps-', 3000));
    await p.waitForTimeout(1000);
    const runs = open ? (await p.evaluate(() => window.__taskview.timeline())).runs.length : null;
    const sorted = [...frames].sort((a, b) => a - b);
    const at = (q) => sorted[Math.floor(q * (sorted.length - 1))].toFixed(1);
    console.log(`40 runs, one live message a frame, timeline ${open ? 'open' : 'closed'}: frame interval median ${at(0.5)} ms, ` +
      `p95 ${at(0.95)} ms, worst ${at(1)} ms, ${frames.filter((f) => f > 20).length} of ${frames.length} frames over 20 ms` +
      (open ? `; ${runs} runs after it` : ''));
    await closePage(p);
  }
}


const KB = (bytes) => `${(bytes / 1000).toFixed(0)} KB`;

async function firstVisit(kandev) {
  console.log('== first rows of /task/… (recordings; cold: 10 Mbit/s, 40 ms latency, cache off; median of 3)');
  const result = await coldVisit(browser, { kandev });
  for (const [size, r] of Object.entries(result.kandev?.bySize ?? {})) {
    console.log(`${String(size).padStart(6)} messages, kandev's client: warm ${r.warmFirstRowsMs.toFixed(0)} ms, ` +
      `cold ${r.coldFirstRowsMs.toFixed(0)} ms; a cold visit receives ${KB(r.bytesSent)}: app ${KB(r.appBytes)}, API ${KB(r.apiBytes)}`);
  }
  for (const [size, r] of Object.entries(result.bySize)) {
    console.log(`${String(size).padStart(6)} messages: warm ${r.warmFirstRowsMs.toFixed(0)} ms ` +
      `(${r.warmRunsMs.map((t) => t.toFixed(0)).join(', ')}; the app's own rows ${r.warmAppRowsMs.toFixed(0)} ms), ` +
      `cold ${r.coldFirstRowsMs.toFixed(0)} ms (${r.coldRunsMs.map((t) => t.toFixed(0)).join(', ')}; ` +
      `the app's own rows ${r.coldAppRowsMs.toFixed(0)} ms); a cold visit receives ${KB(r.bytesSent)}: ` +
      `app ${KB(r.appBytes)}, API ${KB(r.apiBytes)}`);
  }
  for (const r of result.requests) console.log(`        ${r.path.slice(0, 90).padEnd(90)} ${String(r.bytes).padStart(8)} B ${r.encoding}`);
  const [small, big] = Object.values(result.bySize);
  console.log(`ratios: first rows 10k/100 warm ${ratio(big.warmFirstRowsMs, small.warmFirstRowsMs)}, ` +
    `cold ${ratio(big.coldFirstRowsMs, small.coldFirstRowsMs)}`);
  return result;
}

// BENCH_ONLY=files runs part 1 alone, BENCH_ONLY=cold the first visit,
// BENCH_ONLY=streaming parts 3 and 4, BENCH_ONLY=endurance part 4,
// BENCH_ONLY=timeline part 5, BENCH_ONLY=live the first visit and parts 6 and
// 7 (LIVE_SIZES=10000 for one size), BENCH_ONLY=kandev the first visit and
// part 7, BENCH_ONLY=compare part 7 alone (with BENCH_PROFILE=1, each append
// run's main thread is traced and its time printed by kind, bench/profile.mjs),
// BENCH_ONLY=board part 8 alone.
const only = process.env.BENCH_ONLY;
const APPEND_SIZES = (process.env.LIVE_SIZES ?? '1000,10000,100000').split(',').map(Number);
try {
  const comparing = !only || ['live', 'kandev', 'cold', 'compare'].includes(only);
  const kandev = comparing && kandevAvailable() ? KandevClient : null;
  const visit = comparing && only !== 'compare' ? await firstVisit(kandev) : null;
  if (!only || only === 'files') await files(await serve([]));
  if (!only) await tailFirst();
  if (!only || only === 'streaming') await endurance(await streaming());
  if (only === 'endurance') await endurance(null);
  if (!only || only === 'live') await liveAppends({ serve, newPage, sizes: APPEND_SIZES });
  if (!only || ['live', 'kandev', 'compare'].includes(only)) {
    console.log('== live appends against kandev\'s client: the same server, session and frames');
    printComparison(await compareLive({ serve, newPage, kandev }), visit);
  }
  if (!only || only === 'timeline') await timeline(await serve([]));
  if (!only || only === 'board') await boardAtScale({ serve, newPage });
} finally {
  await browser.close();
  for (const server of servers) await server.stop();
  served.remove();
}
