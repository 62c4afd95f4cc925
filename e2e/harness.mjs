// A small end-to-end harness: starts `taskview serve` on a free port (stopped by
// its PID), opens pages in Debian's Chromium through playwright-core, records
// page errors and console errors, and counts passed/failed checks.
import { spawn } from 'node:child_process';
import { copyFileSync, mkdirSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { fileURLToPath } from 'node:url';
import path from 'node:path';
import { chromium } from 'playwright-core';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const SERVER_BIN = process.env.TASKVIEW_BIN ?? path.join(ROOT, 'target/release/taskview');
const CHROMIUM_ARGS = ['--disable-gpu', '--disable-quic', '--no-first-run',
  '--disable-background-networking', '--disable-component-update', '--disable-sync'];

/** A free TCP port on 127.0.0.1. */
export async function freePort() {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => { const { port } = s.address(); s.close(() => resolve(port)); });
  });
}

/**
 * Starts `taskview serve` with extra flags; resolves once it answers HTTP.
 * `port` reuses a port (to bring a stopped server back at the same address).
 */
export async function startServer(flags = [], port = undefined) {
  port ??= await freePort();
  const addr = `127.0.0.1:${port}`;
  const child = spawn(SERVER_BIN, ['serve', '--addr', addr, '--dist', path.join(ROOT, 'dist'), ...flags],
    { stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout.on('data', (d) => { output += d; });
  child.stderr.on('data', (d) => { output += d; });
  const url = `http://${addr}/`;
  const deadline = Date.now() + 15000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`taskview serve exited: ${output}`);
    try { if ((await fetch(url)).ok) break; } catch { /* not up yet */ }
    if (Date.now() > deadline) { child.kill('SIGKILL'); throw new Error(`taskview serve did not start: ${output}`); }
    await new Promise((r) => setTimeout(r, 100));
  }
  return {
    url, port, child,
    output: () => output,
    /** Stops the server by its PID and waits for it to exit. */
    stop: async () => {
      if (child.exitCode !== null) return;
      const exited = new Promise((r) => child.once('exit', r));
      process.kill(child.pid, 'SIGTERM');
      const timer = setTimeout(() => child.exitCode === null && process.kill(child.pid, 'SIGKILL'), 5000);
      await exited; clearTimeout(timer);
    },
  };
}

/**
 * Puts a file into the served folder (`dist/e2e/`) and returns its URL path,
 * for `/view?src=`. `source` is a repo-relative path, or `{name, text}`.
 */
export function serveFile(source) {
  const dir = path.join(ROOT, 'dist', 'e2e');
  mkdirSync(dir, { recursive: true });
  if (typeof source === 'string') {
    const name = path.basename(source);
    copyFileSync(path.join(ROOT, source), path.join(dir, name));
    return `/e2e/${name}`;
  }
  writeFileSync(path.join(dir, source.name), source.text);
  return `/e2e/${source.name}`;
}

/** Runs the registered checks of one spec and reports to the shared counters. */
export class Suite {
  constructor(name, counters) { this.name = name; this.counters = counters; this.cleanups = []; }

  async browser() {
    if (!this._browser) {
      this._browser = await chromium.launch({ executablePath: '/usr/bin/chromium', headless: true, args: CHROMIUM_ARGS });
      this.cleanups.push(() => this._browser.close());
    }
    return this._browser;
  }

  async server(flags, port) { const s = await startServer(flags, port); this.cleanups.push(() => s.stop()); return s; }

  /** A new page whose page errors and console errors are recorded in `page.errors`. */
  async page(options = {}) {
    const context = await (await this.browser()).newContext(options);
    const page = await context.newPage();
    page.errors = [];
    page.on('pageerror', (e) => page.errors.push(`pageerror: ${e.message}`));
    page.on('console', (m) => { if (m.type() === 'error') page.errors.push(`console: ${m.text()}`); });
    return page;
  }

  async test(name, fn) {
    try {
      await fn();
      this.counters.passed++;
      console.log(`ok - ${this.name}: ${name}`);
    } catch (e) {
      this.counters.failed++;
      console.log(`not ok - ${this.name}: ${name}\n  ${String(e?.stack ?? e).split('\n').slice(0, 4).join('\n  ')}`);
    }
  }

  async close() { for (const c of this.cleanups.reverse()) { try { await c(); } catch { /* best effort */ } } }
}

/** Throws unless `actual` equals `expected` (compared as JSON). */
export function expectEqual(actual, expected, what = 'value') {
  if (JSON.stringify(actual) !== JSON.stringify(expected)) {
    throw new Error(`${what}: expected ${JSON.stringify(expected)}, got ${JSON.stringify(actual)}`);
  }
}

/** Throws when the page recorded errors. */
export function expectNoErrors(page) {
  if (page.errors.length) throw new Error(`page logged errors:\n    ${page.errors.join('\n    ')}`);
}

/**
 * Polls `probe` (sync or async) every `everyMs` until it returns a truthy
 * value, which it resolves with; fails after `timeoutMs` naming `what` and
 * the last value seen. For conditions outside the page (server state) and
 * whole-page comparisons.
 */
export async function eventually(probe, what, { timeoutMs = 30000, everyMs = 200 } = {}) {
  const deadline = Date.now() + timeoutMs;
  let last;
  for (;;) {
    last = await probe();
    if (last) return last;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}; last: ${JSON.stringify(last)}`);
    await new Promise((r) => setTimeout(r, everyMs));
  }
}

/**
 * Records in the page every distinct value of `read` (a function run in the
 * page, given `arg`) as the DOM changes, from now on, so a test sees each step
 * even when frames come fast. `recordedStates(page)` returns them.
 */
export async function recordStates(page, read, arg) {
  await page.evaluate(`(() => {
    const read = () => (${read})(${JSON.stringify(arg ?? null)});
    window.__states = [read()];
    new MutationObserver(() => {
      const now = read();
      if (window.__states[window.__states.length - 1] !== now) window.__states.push(now);
    }).observe(document.body, { subtree: true, childList: true, characterData: true, attributes: true });
  })()`);
}

/** The states `recordStates` saw so far. */
export const recordedStates = (page) => page.evaluate(() => window.__states);

/** A page's rows as one line each (the `?debug` hook), or [] while it starts. */
export const rowSummary = (page) =>
  page.evaluate(() => window.__taskview?.rowSummary() ?? []).catch(() => []);

/** Waits until two pages show the same rows; fails with the first difference. */
export async function sameRows(a, b, what, { timeoutMs = 60000, everyMs = 500 } = {}) {
  let left = [], right = [];
  try {
    await eventually(async () => {
      [left, right] = [await rowSummary(a), await rowSummary(b)];
      return left.length > 0 && JSON.stringify(left) === JSON.stringify(right);
    }, what, { timeoutMs, everyMs });
  } catch {
    const at = left.findIndex((row, i) => row !== right[i]);
    throw new Error(`${what}: ${left.length} vs ${right.length} rows; first difference at ${at}: ${JSON.stringify(left[at])} vs ${JSON.stringify(right[at])}`);
  }
  return left;
}

/** `GET /api/v1/scenario` of a running server. */
export async function scenario(server) {
  return (await fetch(`${server.url}api/v1/scenario`)).json();
}
