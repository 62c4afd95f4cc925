// A home of agents' sessions made from the real captures
// (tests/fixtures/captures/, captures/README.md), for the board taskview
// makes (docs/board.md): every agent's sessions as its CLI wrote them, moved
// in time so the newest lands in the last day (every ISO time and epoch-ms
// time of a file shifted by one amount, the files' mtimes with them), and
// some cut so that the board has sessions that wait for permission, work,
// were interrupted and are done. Each capture's tree lies in a folder of its
// own at the top of the home (`<cli>-<scenario>/`: the server looks a few
// folders deep); OpenCode's SQLite store is copied as is (its times are rows
// of a database) into a folder of its own, a second root (`roots`: the
// server reads a store at the top of a watched folder).
import { mkdirSync, readdirSync, readFileSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { ROOT } from './files.mjs';

const CAPTURES = path.join(ROOT, 'tests/fixtures/captures');
const MINUTE = 60_000;
const HOUR = 60 * MINUTE;

/** Each CLI's capture folder, the agent it is, and the tree its CLI wrote. */
export const AGENTS = [
  { cli: 'claude-code-2.1.332', agent: 'Claude Code', tree: 'projects' },
  { cli: 'codex-0.171.0', agent: 'Codex', tree: 'sessions' },
  { cli: 'copilot-1.0.102', agent: 'Copilot CLI', tree: 'session-state' },
  { cli: 'gemini-cli-0.61.0', agent: 'Gemini CLI', tree: 'tmp' },
  { cli: 'kimi-code-2.1.0', agent: 'Kimi Code', tree: 'sessions' },
  { cli: 'qwen-code-0.24.4', agent: 'qwen-code', tree: 'projects' },
  { cli: 'claude-agent-acp-0.101.0', agent: 'ACP agent', tree: 'acp-frames.jsonl' },
  { cli: 'opencode-1.18.33', agent: 'OpenCode', tree: 'opencode.db' },
];

/** The scenarios every agent has done, on the board's Done column. */
const DONE = ['parallel-wave', 'foreground', 'failures'];

const ISO = /\b(20\d\d-\d\d-\d\dT\d\d:\d\d:\d\d)(\.\d{1,9})?(Z|[+-]\d\d:\d\d)?/g;
/** Epoch-ms times of the captures (2026-12), as JSON numbers. */
const EPOCH_MS = /(":\s*)(179\d{10})\b/g;

/** Every file under `dir`. */
function filesUnder(dir) {
  if (!statSync(dir).isDirectory()) return [dir];
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name);
    return e.isDirectory() ? filesUnder(p) : [p];
  });
}

const isText = (file) => /\.(jsonl?|md|yaml|log)$/.test(file);

/** The newest time a text names, in epoch ms (0: none). */
export function newestTime(text) {
  let newest = 0;
  for (const m of text.matchAll(ISO)) newest = Math.max(newest, Date.parse(m[0].replace(/(\.\d{3})\d+/, '$1')) || 0);
  for (const m of text.matchAll(EPOCH_MS)) newest = Math.max(newest, Number(m[2]));
  return newest;
}

/** An ISO time moved by `delta` ms, in the form it had (fraction and zone). */
function shiftIso(match, seconds, fraction = '', zone = '', delta) {
  const offset = zone && zone !== 'Z' ? zone : '';
  const at = Date.parse(`${seconds}${fraction.slice(0, 4)}${offset || 'Z'}`) + delta;
  const offsetMs = offset ? (offset[0] === '-' ? -1 : 1) * (Number(offset.slice(1, 3)) * 60 + Number(offset.slice(4))) * MINUTE : 0;
  const iso = new Date(at + offsetMs).toISOString();
  const digits = fraction.length - 1;
  const frac = digits > 0 ? `.${(iso.slice(20, 23) + fraction.slice(4)).slice(0, digits)}` : '';
  return `${iso.slice(0, 19)}${frac}${zone}`;
}

/** `text` with every time in it moved by `delta` ms. */
export function shiftTimes(text, delta) {
  return text
    .replace(ISO, (m, s, f, z) => shiftIso(m, s, f, z, delta))
    .replace(EPOCH_MS, (m, lead, ms) => `${lead}${Number(ms) + delta}`);
}

/** Sets `file`'s access and modification time to `ms`. */
function touch(file, ms) {
  utimesSync(file, new Date(ms), new Date(ms));
}

/** One capture of `cli`: its session tree and the newest time in it. */
function capture(cli, scenario, tree) {
  const source = path.join(CAPTURES, cli, scenario, tree);
  const files = filesUnder(source).map((file) => ({
    rel: path.relative(source, file),
    text: isText(file) ? readFileSync(file, 'utf8') : null,
    bytes: isText(file) ? null : readFileSync(file),
  }));
  const newest = Math.max(0, ...files.filter((f) => f.text).map((f) => newestTime(f.text)));
  return { source, files, newest, single: !statSync(source).isDirectory() };
}

/**
 * Writes capture `scenario` of `cli` under `dir`, its newest time moved to
 * `at` (and every file's mtime to `written`, default `at`); `cut(files)` may
 * change the files' texts first. Returns the files written.
 */
function place(dir, { cli, tree }, scenario, at, { cut, written = at, as = scenario } = {}) {
  const c = capture(cli, scenario, tree);
  const delta = c.newest ? at - c.newest : 0;
  const files = cut ? cut(c.files) : c.files;
  const target = path.join(dir, `${cli}-${as}`);
  const out = [];
  for (const f of files) {
    const file = c.single ? path.join(target, tree) : path.join(target, f.rel);
    mkdirSync(path.dirname(file), { recursive: true });
    writeFileSync(file, f.text !== null ? shiftTimes(f.text, delta) : f.bytes);
    touch(file, written);
    out.push(file);
  }
  return { files: out, delta, target };
}

/** The lines of a text, without empty ones. */
const lines = (text) => text.split('\n').filter((l) => l.trim());

/**
 * A Claude Code capture cut after the main file's `launch`-th subagent
 * launch came back (its tool result: launched in the background): every
 * file keeps its records up to that time, so the agent is mid-turn with a
 * subagent running. Returns the files and the rest of each (to append later).
 */
export function cutClaudeCode(files, launch = 1) {
  const main = files.find((f) => f.rel.endsWith('.jsonl') && !f.rel.includes('/subagents/'));
  const records = lines(main.text);
  const launches = records
    .map((l, i) => [JSON.parse(l), i])
    .filter(([r]) => r.type === 'assistant' && (r.message?.content ?? []).some?.((b) => b.type === 'tool_use' && b.name === 'Agent'));
  const [launched] = launches[Math.min(launch, launches.length) - 1];
  const call = launched.message.content.find((b) => b.type === 'tool_use' && b.name === 'Agent').id;
  const index = records.findIndex((l) => {
    const r = JSON.parse(l);
    return r.type === 'user' && Array.isArray(r.message?.content)
      && r.message.content.some((b) => b.type === 'tool_result' && b.tool_use_id === call);
  });
  const cutAt = Date.parse(JSON.parse(records[index]).timestamp);
  const rest = new Map();
  const kept = files.map((f) => {
    if (!f.rel.endsWith('.jsonl')) return f;
    const all = lines(f.text);
    const keep = f === main
      ? all.slice(0, index + 1)
      : all.filter((l) => !(Date.parse(JSON.parse(l).timestamp) > cutAt));
    rest.set(f.rel, all.slice(keep.length));
    return { ...f, text: keep.length ? `${keep.join('\n')}\n` : '' };
  });
  return { files: kept, rest, main: main.rel };
}

/**
 * An ACP adapter's frames cut right after the agent asked the client's
 * permission (a `session/request_permission` not answered yet).
 */
function cutAtPermission(files) {
  return files.map((f) => {
    const all = lines(f.text);
    const asked = all.findIndex((l) => l.includes('"session/request_permission"'));
    return { ...f, text: `${all.slice(0, asked + 1).join('\n')}\n` };
  });
}

/**
 * Makes the captures home in `dir` at `now`: every agent's `DONE`
 * scenarios settled over the last day; Claude Code's and Codex's
 * `interrupted` (stopped mid-turn, quiet for hours); the ACP adapter's
 * `foreground` cut where it waits for permission; Claude Code's `slow-wave` working
 * (mid-turn, subagents running, written seconds ago); OpenCode's store of
 * `parallel-wave` done, beside `dir` (`<dir>-opencode/…`). Returns what it
 * holds: `{dir, roots, sessions: [{agent, cli, scenario, kind, files, target}], working}`,
 * `target` the folder a session's files are in,
 * `roots` the folders to watch,
 * `working` the working session's files and what is left of them to write.
 */
export function capturesHome(dir, now = Date.now()) {
  const sessions = [];
  let age = 20 * MINUTE;
  for (const a of AGENTS.filter((x) => x.agent !== 'OpenCode')) {
    for (const scenario of DONE) {
      if (!existsScenario(a.cli, scenario)) continue;
      const { files, target } = place(dir, a, scenario, now - age);
      sessions.push({ ...a, scenario, kind: 'done', files, target });
      age += 47 * MINUTE;
    }
  }
  for (const cli of ['claude-code-2.1.332', 'codex-0.171.0']) {
    const a = AGENTS.find((x) => x.cli === cli);
    const { files, target } = place(dir, a, 'interrupted', now - 3 * HOUR);
    sessions.push({ ...a, scenario: 'interrupted', kind: 'interrupted', files, target });
  }
  const acp = AGENTS.find((x) => x.agent === 'ACP agent');
  const waiting = place(dir, acp, 'foreground', now - 40_000, { cut: cutAtPermission, as: 'waiting' });
  sessions.push({ ...acp, scenario: 'foreground', kind: 'waiting', files: waiting.files, target: waiting.target });
  const claude = AGENTS[0];
  let cut;
  const working = place(dir, claude, 'slow-wave', now - 20_000, {
    cut: (files) => (cut = cutClaudeCode(files)).files,
  });
  sessions.push({ ...claude, scenario: 'slow-wave', kind: 'working', files: working.files, target: working.target });
  const root = working.target;
  const opencode = AGENTS.find((x) => x.agent === 'OpenCode');
  const store = path.join(dir, '..', `${path.basename(dir)}-opencode`);
  const stored = place(store, opencode, 'parallel-wave', now - 14 * HOUR);
  sessions.push({ ...opencode, scenario: 'parallel-wave', kind: 'done', files: stored.files, target: stored.target });
  return {
    dir,
    roots: [dir, stored.target],
    sessions,
    working: { root, main: path.join(root, cut.main), rest: cut.rest, delta: working.delta },
  };
}

/** Whether `cli` captured `scenario`. */
function existsScenario(cli, scenario) {
  try {
    const { scenarios } = JSON.parse(readFileSync(path.join(CAPTURES, cli, 'manifest.json'), 'utf8'));
    return scenarios[scenario]?.status === 'captured';
  } catch {
    return false;
  }
}
