// `taskview serve` for tests and benchmarks: started on a port the OS picks
// (or a given one, to bring a stopped server back at the same address), stopped
// by its PID. Used by the fixtures (lib/fixtures.mjs) and by bench.mjs.
import { spawn } from 'node:child_process';
import { createServer } from 'node:net';
import path from 'node:path';
import { ROOT } from './files.mjs';

export const SERVER_BIN = process.env.TASKVIEW_BIN ?? path.join(ROOT, 'target/release/taskview');
const START_TIMEOUT_MS = 20000;

/** A free TCP port on 127.0.0.1 (for a backend a test starts later). */
export async function freePort() {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => { const { port } = s.address(); s.close(() => resolve(port)); });
  });
}

/** A running `taskview serve`. */
export class Server {
  constructor(child, url, token, output) {
    this.child = child;
    /** Base URL with a trailing slash, e.g. `http://127.0.0.1:41234/`. */
    this.url = url;
    this.port = Number(new URL(url).port);
    /** The token it printed in its URL (bound beyond loopback or `--token`), else null. */
    this.token = token;
    this.output = output;
  }

  /** Headers that carry the token, if any (docs/operating.md "Who may read"). */
  get auth() {
    return this.token ? { authorization: `Bearer ${this.token}` } : {};
  }

  /** `GET /api/v1/scenario`: `{name, finished, iterations, frames}`. */
  async scenario() {
    return this.json('api/v1/scenario');
  }

  /** `GET <path>` as JSON (path without the leading slash). */
  async json(pathAndQuery) {
    return (await fetch(`${this.url}${pathAndQuery}`, { headers: this.auth })).json();
  }

  /** Stops the server by its PID and waits for it to exit. */
  async stop() {
    if (this.child.exitCode !== null || this.child.signalCode !== null) return;
    const exited = new Promise((r) => this.child.once('exit', r));
    process.kill(this.child.pid, 'SIGTERM');
    const timer = setTimeout(() => this.child.exitCode === null && process.kill(this.child.pid, 'SIGKILL'), 5000);
    await exited;
    clearTimeout(timer);
  }
}

/** Whether the server at `url` answers (and has listed its recordings). */
async function ready(url, flags, headers) {
  if (!(await fetch(url, { headers })).ok) return false;
  if (!flags.includes('--recordings')) return true;
  const status = await (await fetch(`${url}api/v1/scenario`, { headers })).json();
  return status.iterations >= 1;
}

/**
 * Starts `taskview serve --dist dist` with extra `flags` on `host`:`port`
 * (0: the OS picks one; the server prints its URL first; `host` 0.0.0.0
 * listens beyond loopback, so a token is needed) and resolves once it
 * answers HTTP and, for `--recordings`, has listed every session it found at
 * start (it answers before: its scenario status says `iterations: 1` then),
 * within `startMs`. `bin` and `cwd` run another copy of the binary
 * elsewhere; `dist: null` serves the app built into it.
 */
export async function startServer(flags = [], {
  port = 0, host = '127.0.0.1', startMs = START_TIMEOUT_MS, bin = SERVER_BIN, cwd, dist = path.join(ROOT, 'dist'),
} = {}) {
  const app = dist ? ['--dist', dist] : [];
  const child = spawn(bin, ['serve', '--addr', `${host}:${port}`, ...app, ...flags],
    { cwd, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout.on('data', (d) => { output += d; });
  child.stderr.on('data', (d) => { output += d; });
  const deadline = Date.now() + startMs;
  for (;;) {
    const [, url, token = null] = /(http:\/\/127\.0\.0\.1:\d+\/)(?:\?token=([\w.~-]+))?/.exec(output) ?? [];
    if (child.exitCode !== null) throw new Error(`taskview serve exited: ${output}`);
    const auth = token ? { authorization: `Bearer ${token}` } : {};
    try { if (url && (await ready(url, flags, auth))) return new Server(child, url, token, () => output); } catch { /* not up yet */ }
    if (Date.now() > deadline) { child.kill('SIGKILL'); throw new Error(`taskview serve did not start: ${output}`); }
    await new Promise((r) => setTimeout(r, 50));
  }
}
