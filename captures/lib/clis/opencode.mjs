// OpenCode (`opencode-ai`), headless: `opencode run --format json --auto`,
// talking to the scripted server as an OpenAI chat-completions API (a custom
// provider in its config). It keeps its sessions in a SQLite store
// (`~/.local/share/opencode/opencode.db`); after a run, each session of the
// tree is also exported with `opencode export <id>`, the JSON users share.
import { execFileSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { dispatch } from './tools.mjs';
import { notDriven } from './not-driven.mjs';

/** OpenCode's built-in subagents: `explore` (read-only) and `general`; every other scenario type runs as `general`. */
const typeOf = (type) => (type === 'Explore' ? 'explore' : 'general');

/** OpenCode's tools for the scenario actions (its `grep`/`glob` need ripgrep, which it downloads, so scenarios use `bash`). */
const TOOLS = {
  spawn: (action, ctx) => {
    const def = ctx.scenario.agents.get(action.key);
    const input = { description: def.description, prompt: def.prompt, subagent_type: typeOf(def.type) };
    if (isBackground(def)) input.background = true;
    return { name: 'task', input };
  },
  shell: (action) => ({ name: 'bash', input: { command: action.command, description: action.description } }),
  read: (action, ctx) => ({ name: 'read', input: { filePath: join(ctx.cwd, action.path) } }),
};

/** Top-level launches run in the background unless the scenario says otherwise; nested ones in the foreground. */
const isBackground = (def) => def.background ?? def.depth === 1;

/** The child session in a task result: `<task id="ses_…" state="…">`. */
const sessionOf = (text) => text.match(/<task id="([^"]+)"/)?.[1] ?? null;

/** Has the synthetic `<task id="…" state="completed|error">` message for session `id` reached this conversation? */
const notified = (messages, id) =>
  messages.some((m) => m.role === 'user' && m.parts.some((p) => p.type === 'text' && new RegExp(`<task id="${id}" state="(completed|error)"`).test(p.text)));

/** How OpenCode is driven through a scenario. */
export const dialect = {
  name: 'opencode',
  callPrefix: 'call_',
  typeOf,
  call: (action, ctx) => dispatch(TOOLS, 'opencode', action, ctx),

  /** OpenCode asks the model for a session title (a system prompt "You are a title generator…"): a side request. */
  side: (conversation) => (/You are a title generator/.test(conversation.system) ? 'Scripted session' : null),

  agentIdFromLaunch: sessionOf,

  /** A foreground task settles with its result; a background one (`state="running"`) with its synthetic completion message. */
  settled({ launch, agentId, messages }) {
    if (!/state="running"/.test(launch)) return true;
    return agentId !== null && notified(messages, agentId);
  },

  /**
   * `opencode run` exits (killing its background children) once the main
   * agent's turn ends, so an agent waiting for background tasks keeps its
   * turn going with a short sleep.
   */
  waitCalls(missing) {
    if (!missing.some((m) => m.kind === 'agent')) return [];
    return [{ name: 'bash', input: { command: 'sleep 2', description: 'Wait for the background agents' } }];
  },
};

/** Runs the installed opencode offline in the run's HOME (the model server is gone by now; export needs none); its stdout. */
const opencode = (bin, args, { home, work }) =>
  execFileSync(bin, args, { cwd: work, env: { PATH: process.env.PATH, ...cli.env({ home, serverUrl: 'http://127.0.0.1:9' }) }, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], timeout: 60_000, maxBuffer: 64 << 20 });

/**
 * Exports the root session of a run (its id is on every `--format json`
 * event) and, through the task parts, every child session, into
 * `exports/<id>.json`.
 */
function exportTree({ bin, stdout, dirs: { home, work }, out }) {
  const root = stdout.match(/"sessionID"\s*:\s*"(ses_[^"]+)"/)?.[1];
  if (!root) return;
  mkdirSync(join(out, 'exports'), { recursive: true });
  const queue = [root];
  const seen = new Set();
  while (queue.length) {
    const id = queue.shift();
    if (seen.has(id)) continue;
    seen.add(id);
    const json = opencode(bin, ['export', id], { home, work });
    writeFileSync(join(out, 'exports', `${id}.json`), json);
    for (const m of json.matchAll(/"sessionId"\s*:\s*"(ses_[^"]+)"/g)) queue.push(m[1]);
  }
}

/**
 * The store, its write-ahead log folded in by OpenCode's own `opencode db`
 * (a checkpoint: the pages move from `opencode.db-wal` into `opencode.db`),
 * so one small file holds every session; then each session's export.
 */
function collectStore(run) {
  const { bin, dirs, out } = run;
  const store = join(dirs.home, '.local', 'share', 'opencode', 'opencode.db');
  if (!existsSync(store)) return;
  opencode(bin, ['db', 'PRAGMA wal_checkpoint(TRUNCATE)'], dirs);
  copyFileSync(store, join(out, 'opencode.db'));
  exportTree(run);
}

export const cli = {
  name: 'opencode',
  bin: 'opencode',
  api: 'openai-chat',
  dialect,
  isBackground,
  unsupported: {
    ...notDriven('OpenCode'),
    fork: 'the task tool has no fork mode',
    send: 'no tool sends a message to a running subagent',
    stop: 'no tool stops a running subagent',
    workflow: 'no workflow tool',
    'background-shell': 'bash has no background mode',
    compact: 'no headless compaction: `run --session <id> --command compact` fails with UnknownError in 1.18.33 (compact is a TUI action, reached only through the server API session.summarize, which the harness does not drive)',
  },
  /**
   * `~/.config/opencode/opencode.json`: the scripted server as provider
   * `mock` (its URL from the environment), sharing and updates off, and
   * nesting allowed three deep (`subagent_depth`; the general agent may
   * call `task`).
   */
  setup({ home }) {
    const dir = join(home, '.config', 'opencode');
    mkdirSync(dir, { recursive: true });
    const config = {
      $schema: 'https://opencode.ai/config.json',
      provider: {
        mock: {
          npm: '@ai-sdk/openai-compatible',
          name: 'Scripted model server',
          options: { baseURL: '{env:TASKVIEW_MODEL_URL}/v1', apiKey: 'sk-scripted-model-server' },
          models: { 'mock-model': { name: 'mock-model', tool_call: true, limit: { context: 200000, output: 32000 } } },
        },
      },
      model: 'mock/mock-model',
      small_model: 'mock/mock-model',
      share: 'disabled',
      autoupdate: false,
      subagent_depth: 3,
      agent: { general: { permission: { task: 'allow' } } },
    };
    writeFileSync(join(dir, 'opencode.json'), `${JSON.stringify(config, null, 2)}\n`);
    // OpenCode npm-installs its plugin SDK into each config folder unless the folder's lockfile already lists it.
    const lock = { name: 'opencode-config', lockfileVersion: 3, packages: { '': { dependencies: { '@opencode-ai/plugin': '1.18.33' } } } };
    mkdirSync(join(dir, 'node_modules'), { recursive: true });
    writeFileSync(join(dir, 'package-lock.json'), `${JSON.stringify(lock, null, 2)}\n`);
    return { '~/.config/opencode/opencode.json': config, '~/.config/opencode/package-lock.json': lock };
  },
  /** Downloads, updates, sharing, plugins and Claude Code compatibility off; background subagents on. */
  env({ home, serverUrl }) {
    return {
      HOME: home,
      TASKVIEW_MODEL_URL: serverUrl,
      OPENCODE_DISABLE_MODELS_FETCH: '1',
      OPENCODE_DISABLE_AUTOUPDATE: '1',
      OPENCODE_DISABLE_SHARE: '1',
      OPENCODE_DISABLE_LSP_DOWNLOAD: '1',
      OPENCODE_DISABLE_DEFAULT_PLUGINS: '1',
      OPENCODE_DISABLE_CLAUDE_CODE: '1',
      OPENCODE_EXPERIMENTAL_BACKGROUND_SUBAGENTS: 'true',
    };
  },
  args(scenario) {
    return ['run', '--format', 'json', '--auto', '-m', 'mock/mock-model', scenario.prompt];
  },
  /** The session the first run made (OpenCode picks its id): the `sessionID` of its JSON events. */
  sessionIdFrom(stdout) {
    return stdout.match(/"sessionID":"(ses_[A-Za-z0-9]+)"/)?.[1] ?? null;
  },
  /** A later run of the session: `--session <id>` or `--continue`, with its prompt. */
  laterArgs(run, sessionId) {
    const head = ['run', '--format', 'json', '--auto', '-m', 'mock/mock-model'];
    return run.how === 'continue' ? [...head, '--continue', run.prompt] : [...head, '--session', sessionId, run.prompt];
  },
  collect: [],
  stdoutFile: 'events.jsonl',
  afterRun: collectStore,
};
