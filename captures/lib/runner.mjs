// One run: a scenario, one CLI, a throwaway HOME. Starts the scripted server,
// runs the CLI against it (with a refusing proxy and its phone-home switches
// off), waits for it to exit, and returns what happened.
import { createHash } from 'node:crypto';
import { cpSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { needsOf } from './dsl.mjs';
import { Engine } from './engine.mjs';
import { launch } from './process.mjs';
import { startServer } from './server.mjs';
import { gitInit, installHelpers } from './setup/index.mjs';

const WORKSPACE = join(dirname(fileURLToPath(import.meta.url)), '..', 'workspace', 'parser-kit');

/** Proxy variables that send any attempt to leave 127.0.0.1 to the server, which refuses it. */
function proxyEnv(serverUrl) {
  const loopback = '127.0.0.1,localhost,::1';
  return { HTTP_PROXY: serverUrl, HTTPS_PROXY: serverUrl, http_proxy: serverUrl, https_proxy: serverUrl, NO_PROXY: loopback, no_proxy: loopback };
}

/**
 * A fresh run folder: `home/`, `tmp/`, the workspace copied to `parser-kit/`
 * (a git repository when the scenario's setup asks, `git`) and the helper
 * scripts a setup may use in `helpers/`.
 */
export function prepare(root, { home = join(root, 'home'), git = false } = {}) {
  rmSync(root, { recursive: true, force: true });
  const work = join(root, 'parser-kit');
  const tmp = join(root, 'tmp');
  for (const d of [home, tmp]) mkdirSync(d, { recursive: true });
  cpSync(WORKSPACE, work, { recursive: true });
  if (git) gitInit(work);
  return { root, home, work, tmp, helpers: installHelpers(root) };
}

/**
 * Runs `scenario` with `cli` (lib/clis/*.mjs) from the installed executable
 * `bin`, in the folders of prepare(). `cli.drive(child, ctx)` may talk to
 * the CLI over stdio (the ACP client does) and resolve to `{ outcome, frames }`;
 * the CLI then has 5 s to exit. A scenario's later runs are `cli.laterArgs`
 * runs of the CLI, or, for a CLI driven over stdio, `cli.driveLater(child,
 * ctx)` drives a new process of it, whose frames follow the first run's.
 * Resolves to `{ code, signal, stdout, stderr,
 * transcript, driveOutcome, ms, engine, log, command }`.
 */
export async function run({ cli, scenario, bin, dirs, timeoutMs = 10 * 60_000, keepRequests = null, otlp = false, onLine = () => {} }) {
  const engine = new Engine(scenario, cli.dialect, { cwd: dirs.work });
  const keep = keepRequests && ((entry, body) => {
    mkdirSync(keepRequests, { recursive: true });
    writeFileSync(join(keepRequests, `${String(entry.n).padStart(4, '0')}.json`), JSON.stringify({ ...entry, body }, null, 1));
  });
  const server = await startServer({ engine, keepBodies: keep, otlp, onRequest: (e) => onLine(summarize(e)) });
  const config = cli.setup?.({ home: dirs.home, work: dirs.work, helpers: dirs.helpers, scenario, serverUrl: server.url, otlpUrl: otlp ? server.url : null }) ?? {};
  const ownEnv = {
    ...cli.env({ home: dirs.home, serverUrl: server.url, tmp: dirs.tmp, work: dirs.work, needs: needsOf(scenario), maxRetries: scenario.maxRetries }),
    ...(otlp ? cli.telemetryEnv?.(server.url) : {}),
  };
  const env = { ...baseEnv(), ...proxyEnv(server.url), ...ownEnv, TMPDIR: dirs.tmp };
  // A session run again later is named from the start (`--session-id`).
  const sessionId = scenario.runs ? uuidFor(scenario.name) : null;
  const args = cli.args(scenario, { work: dirs.work, helpers: dirs.helpers, serverUrl: server.url, sessionId });
  const started = Date.now();
  const proc = launch(bin, args, { cwd: dirs.work, env, timeoutMs, stdin: cli.drive ? 'pipe' : 'ignore' });
  const { child } = proc;
  // A client that interrupts a turn itself (the ACP client's session/cancel) is told when; any other CLI gets SIGINT.
  const interrupted = scenario.interrupt ? interruptWhenRunning(engine, scenario.interrupt, cli.interruptsWith ? () => {} : () => child.kill('SIGINT')) : null;
  let driven = null;
  if (cli.drive) driven = await cli.drive(child, { scenario, dirs, engine, onLine, interrupt: interrupted?.fired ?? null });
  let [code, signal] = await proc.finish(cli.drive ? 5000 : null);
  let { stdout, stderr } = proc.output;
  interrupted?.cancel();
  const later = [];
  // A CLI that cannot be given its session's id names it in its output (`sessionIdFrom`).
  const laterId = (scenario.runs && (driven?.sessionId ?? cli.sessionIdFrom?.(stdout))) || sessionId;
  for (const next of scenario.runs ?? []) {
    if (code !== 0 || (driven && driven.outcome !== 'done')) break;
    if (cli.driveLater) {
      // A client restarted between runs: a new process, driven over stdio again, its frames appended.
      const ran = await driveOnce(bin, args, { cwd: dirs.work, env, timeoutMs }, (child) => cli.driveLater(child, { run: next, sessionId: laterId, scenario, dirs, engine, onLine }));
      later.push({ args: args.map(hidePort), ...cli.laterCommand?.(next), code: ran.code ?? ran.signal });
      [code, signal] = [ran.code, ran.signal];
      stderr += ran.stderr;
      driven = { frames: driven.frames + ran.driven.frames, outcome: ran.driven.outcome, sessionId: driven.sessionId };
      continue;
    }
    const laterArgs = cli.laterArgs(next, laterId, { serverUrl: server.url, scenario, helpers: dirs.helpers });
    const ran = await runOnce(bin, laterArgs, { cwd: dirs.work, env, timeoutMs });
    later.push({ args: laterArgs.map(hidePort), code: ran.code ?? ran.signal });
    [code, signal] = [ran.code, ran.signal];
    stdout = ran.stdout;
    stderr += ran.stderr;
  }
  await server.close();
  return {
    code,
    signal,
    stdout,
    stderr,
    transcript: driven?.frames ?? null,
    driveOutcome: driven?.outcome ?? null,
    ms: Date.now() - started,
    interruptedAt: interrupted?.at() ?? null,
    engine,
    log: server.log,
    telemetry: server.telemetry,
    command: { config, bin: cli.bin, args: args.map(hidePort), ...(scenario.interrupt && cli.interruptsWith ? { interruptWith: cli.interruptsWith } : {}), ...(later.length ? { later } : {}), env: Object.fromEntries(Object.entries(ownEnv).map(([k, v]) => [k, hidePort(v)])), proxy: Object.keys(proxyEnv(server.url)) },
  };
}

/** A UUID that is the same for every run of scenario `name` (a session id the CLI accepts). */
function uuidFor(name) {
  const hex = createHash('sha256').update(`taskview-captures|${name}`).digest('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-4${hex.slice(13, 16)}-8${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}

/**
 * Runs `bin args` with its stdio piped, driven by `drive(child)` (which
 * resolves to `{ outcome, frames, sessionId }`); the process then has 5 s to
 * exit. Resolves to `{ code, signal, stderr, driven }`.
 */
async function driveOnce(bin, args, options, drive) {
  const proc = launch(bin, args, { ...options, stdin: 'pipe' });
  const driven = await drive(proc.child);
  const [code, signal] = await proc.finish(5000);
  return { code, signal, stderr: proc.output.stderr, driven };
}

/** Runs `bin args` to its exit (killed after `timeoutMs`); resolves to `{ code, signal, stdout, stderr }`. */
async function runOnce(bin, args, options) {
  const proc = launch(bin, args, options);
  const [code, signal] = await proc.finish();
  return { code, signal, ...proc.output };
}

/**
 * Interrupts `after` ms once every agent of `whileRunning` has made its first
 * request (the engine has answered it), as a user pressing Ctrl-C mid-wave:
 * calls `interrupt()` (SIGINT to the CLI) and resolves `fired` (a client
 * driving the CLI interrupts its turn then). Returns `{ cancel, at, fired }`
 * (`at`: ms after the engine's start, or null when it never fired).
 */
function interruptWhenRunning(engine, { whileRunning, after = 1000 }, interrupt) {
  let sentAt = null;
  let timer = null;
  let fire;
  const fired = new Promise((resolve) => (fire = resolve));
  const poll = setInterval(() => {
    if (!whileRunning.every((key) => engine.state.get(key)?.answers.size > 0)) return;
    clearInterval(poll);
    timer = setTimeout(() => {
      sentAt = engine.clock() - engine.start;
      interrupt();
      fire();
    }, after);
  }, 50);
  return {
    cancel: () => { clearInterval(poll); clearTimeout(timer); },
    at: () => sentAt,
    fired,
  };
}

/** The server's port changes on every run; the manifest says `<port>`. */
const hidePort = (value) => value.replace(/127\.0\.0\.1:\d+/g, '127.0.0.1:<port>');

/** The parent environment minus anything that could carry a credential or change a CLI's mind. */
function baseEnv() {
  const keep = ['PATH', 'LANG', 'LC_ALL', 'TERM', 'SHELL', 'USER', 'LOGNAME'];
  return Object.fromEntries(keep.filter((k) => process.env[k]).map((k) => [k, process.env[k]]));
}

/** One line for the console per request. */
function summarize(e) {
  if (e.egress) return `EGRESS ATTEMPT refused: ${e.method} ${e.path}`;
  if (!e.api) return `${e.method} ${e.path} -> ${e.status}`;
  const who = e.agent ? `${e.agent}#${e.turn}` : e.kind;
  const extra = [e.waiting && `waiting for ${e.waiting.join(',')}`, e.loading && 'loading tools', e.aborted && 'ABORTED by client'].filter(Boolean).join(' ');
  return `${e.api} ${who} ${e.kind}${e.step != null ? ` step ${e.step}` : ''} after ${e.after}ms -> ${e.status ?? '-'} ${extra}`;
}
