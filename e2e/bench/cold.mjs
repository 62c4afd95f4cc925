// First rows of a `/task/…` page, warm and cold (issue 25), for `make bench`
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
 * Records `window.__firstRows` (the first transcript row in the DOM) and
 * `window.__appRows` (the first row of the app's own list).
 */
function watchFirstRows() {
  new MutationObserver((_, observer) => {
    const now = performance.now();
    if (window.__firstRows === undefined && document.querySelector('.row-slot')) window.__firstRows = now;
    if (document.querySelector('.app-main .row-slot') && !document.getElementById('first-screen')) {
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

/** One cold load of `url`: ms to first rows and the bytes received. */
async function coldLoad(browser, url) {
  const context = await browser.newContext(VIEWPORT);
  try {
    await context.addInitScript(watchFirstRows);
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
async function warmLoads(browser, url, runs) {
  const context = await browser.newContext(VIEWPORT);
  try {
    await context.addInitScript(watchFirstRows);
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

/**
 * Warm and cold first rows of the 10,000-message task and of a 100-message
 * one, with the bytes a cold visit receives. Starts and stops its own server.
 */
export async function coldVisit(browser, { sizes = [100, 10000], runs = 3 } = {}) {
  const dir = mkdtempSync(path.join(tmpdir(), 'taskview-cold-'));
  const server = await (async () => {
    for (const size of sizes) writeRecording(dir, `live-${size}.json`, session(size));
    return startServer(['--recordings', dir], { startMs: 120000 });
  })();
  try {
    const results = {};
    for (const size of sizes) {
      const url = `${server.url}task/rec-live-${size}-json`;
      const cold = [];
      for (let run = 0; run < runs; run++) cold.push(await coldLoad(browser, url));
      const warm = await warmLoads(browser, url, runs);
      const last = cold.at(-1).bytes;
      results[size] = {
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
    const big = results[Math.max(...sizes)];
    return { ...big, bySize: results };
  } finally {
    await server.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}
