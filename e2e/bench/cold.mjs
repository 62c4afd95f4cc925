// First rows of a `/task/…` page, warm and cold (docs/behaviour.md §10), for `make bench`
// (bench.mjs prints them). Recordings of 100 and 10,000 messages served by
// `taskview serve --recordings`; times are from navigation, on the page's own
// clock, to the first transcript row in the DOM (the server's first screen
// counts: it is what the reader sees) and to the app's own first row (the app
// took the first screen over), both seen by a MutationObserver installed
// before the page's own scripts.
//
// - cold: a fresh browser context with the cache off (`Network.setCacheDisabled`)
//   and the network emulated at 10 Mbit/s both ways with 40 ms latency
//   (`Network.emulateNetworkConditions`); the bytes sent are the responses'
//   encoded sizes (`Network.loadingFinished`), split into the app's files and
//   the API's answers.
// - warm: the same page loaded again in a context that loaded it once (HTTP
//   cache and compiled wasm kept), without emulation.
//
// Each figure is the median of `runs` loads.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { writeRecording } from '../lib/files.mjs';
import { startServer } from '../lib/server.mjs';
import { session } from '../lib/sessions.mjs';

/** The network of the cold visit: 10 Mbit/s both ways, 40 ms latency. */
export const COLD_NETWORK = { offline: false, latency: 40, downloadThroughput: 10e6 / 8, uploadThroughput: 10e6 / 8 };
const VIEWPORT = { viewport: { width: 1200, height: 900 } };

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

/**
 * What a transcript row is in each client's DOM: any row (`first`), a row of
 * the app's own list (`app`), and the server-written first screen the app
 * takes over (`handover`, taskview only). kandev's client anchors each
 * message as `msg-<id>` too.
 */
export const ROWS = {
  taskview: { first: '.row-slot', app: '.app-main .row-slot', handover: 'first-screen' },
  kandev: { first: '[id^="msg-"]', app: '[id^="msg-"]', handover: null },
};

/**
 * Records `window.__firstRows` (the first transcript row in the DOM) and
 * `window.__appRows` (the first row of the app's own list); `rows` is one of
 * `ROWS`.
 */
function watchFirstRows(rows) {
  new MutationObserver((_, observer) => {
    const now = performance.now();
    if (window.__firstRows === undefined && document.querySelector(rows.first)) window.__firstRows = now;
    if (document.querySelector(rows.app) && !(rows.handover && document.getElementById(rows.handover))) {
      window.__appRows = now;
      observer.disconnect();
    }
  }).observe(document, { childList: true, subtree: true });
}

/** Loads `url` in `page`: ms to the first row and to the app's own first row. */
async function firstRows(page, url) {
  await page.goto(url);
  await page.waitForFunction(() => window.__appRows !== undefined, null, { timeout: 60000, polling: 10 });
  return page.evaluate(() => ({ first: window.__firstRows, app: window.__appRows }));
}

/**
 * Bytes of every response `page` receives (encoded, as sent, headers
 * included), by kind: `app` (HTML, JS, CSS, wasm, icons) and `api`.
 */
async function countBytes(cdp) {
  const kinds = new Map();
  const bytes = { app: 0, api: 0, requests: [] };
  cdp.on('Network.responseReceived', ({ requestId, response }) => {
    kinds.set(requestId, { url: new URL(response.url), encoding: response.headers['content-encoding'] ?? response.headers['Content-Encoding'] });
  });
  cdp.on('Network.loadingFinished', ({ requestId, encodedDataLength }) => {
    const seen = kinds.get(requestId);
    if (!seen) return;
    const kind = seen.url.pathname.startsWith('/api/') ? 'api' : 'app';
    bytes[kind] += encodedDataLength;
    bytes.requests.push({ path: seen.url.pathname + seen.url.search, bytes: encodedDataLength, encoding: seen.encoding ?? 'identity' });
  });
  await cdp.send('Network.enable');
  return bytes;
}

/** A context whose pages record their first rows (`rows`, one of `ROWS`). */
async function watchingContext(browser, rows, prepare) {
  const context = await browser.newContext(VIEWPORT);
  await prepare?.(context);
  await context.addInitScript(watchFirstRows, rows);
  return context;
}

/** One cold load of `url`: ms to first rows and the bytes received. */
async function coldLoad(browser, url, rows, prepare) {
  const context = await watchingContext(browser, rows, prepare);
  try {
    const page = await context.newPage();
    const cdp = await context.newCDPSession(page);
    const bytes = await countBytes(cdp);
    await cdp.send('Network.setCacheDisabled', { cacheDisabled: true });
    await cdp.send('Network.emulateNetworkConditions', COLD_NETWORK);
    const times = await firstRows(page, url);
    // Let the responses in flight at first rows finish, so their bytes count.
    await page.waitForLoadState('networkidle').catch(() => {});
    return { ...times, bytes };
  } finally {
    await context.close();
  }
}

/** Warm loads of `url`: the page once to fill the cache, then `runs` times more. */
async function warmLoads(browser, url, runs, rows, prepare) {
  const context = await watchingContext(browser, rows, prepare);
  try {
    const first = await context.newPage();
    await firstRows(first, url);
    await first.close();
    const times = [];
    for (let run = 0; run < runs; run++) {
      const page = await context.newPage();
      times.push(await firstRows(page, url));
      await page.close();
    }
    return times;
  } finally {
    await context.close();
  }
}

/** Cold and warm loads of `url` (`runs` each), summarized. */
async function measure(browser, url, runs, rows, prepare) {
  const cold = [];
  for (let run = 0; run < runs; run++) cold.push(await coldLoad(browser, url, rows, prepare));
  const warm = await warmLoads(browser, url, runs, rows, prepare);
  const last = cold.at(-1).bytes;
  return {
    warmFirstRowsMs: median(warm.map((w) => w.first)),
    warmAppRowsMs: median(warm.map((w) => w.app)),
    warmRunsMs: warm.map((w) => w.first),
    coldFirstRowsMs: median(cold.map((c) => c.first)),
    coldAppRowsMs: median(cold.map((c) => c.app)),
    coldRunsMs: cold.map((c) => c.first),
    bytesSent: last.app + last.api,
    appBytes: last.app,
    apiBytes: last.api,
    requests: last.requests,
  };
}

/**
 * Warm and cold first rows of the 10,000-message task and of a 100-message
 * one, with the bytes a cold visit receives. Starts and stops its own server.
 * With `kandev` (a `KandevClient` class), kandev's client is measured too, on
 * the same server and tasks, in the same run: `{bySize, kandev: {bySize}}`.
 */
export async function coldVisit(browser, { sizes = [100, 10000], runs = 3, kandev = null } = {}) {
  const dir = mkdtempSync(path.join(tmpdir(), 'taskview-cold-'));
  for (const size of sizes) writeRecording(dir, `live-${size}.json`, session(size));
  const server = await startServer(['--recordings', dir], { startMs: 120000 });
  const peer = kandev && await kandev.start(server.url);
  try {
    const ours = {};
    const theirs = {};
    for (const size of sizes) {
      const task = `rec-live-${size}-json`;
      ours[size] = await measure(browser, `${server.url}task/${task}`, runs, ROWS.taskview);
      if (peer) theirs[size] = await measure(browser, peer.taskUrl(task), runs, ROWS.kandev, kandev.prepare);
    }
    const big = ours[Math.max(...sizes)];
    return { ...big, bySize: ours, kandev: peer ? { bySize: theirs } : null };
  } finally {
    await peer?.stop();
    await server.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}
