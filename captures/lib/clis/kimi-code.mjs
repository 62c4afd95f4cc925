// Kimi Code (`@moonshot-ai/kimi-code`), headless: `kimi -p <prompt>`, run by
// the Node 22 the pin installs beside it (the CLI needs Node ≥ 22), talking to
// the scripted server as an OpenAI chat-completions API (a provider of type
// `openai` in its `config.toml`). It keeps each session in a folder of its own,
// one `wire.jsonl` per agent (`~/.kimi-code/sessions/wd_<dir>_<hash>/session_<uuid>/`).
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { installDir } from '../install.mjs';
import { dispatch } from './tools.mjs';
import { notDriven } from './not-driven.mjs';

/** Kimi Code's built-in subagents: `explore`, `plan`, and `coder` for every other scenario type. */
const TYPES = { Explore: 'explore', Plan: 'plan' };
const typeOf = (type) => TYPES[type] ?? 'coder';

/** Top-level launches run in the background unless the scenario says otherwise; nested ones in the foreground. */
const isBackground = (def) => def.background ?? def.depth === 1;

/** Kimi Code's tools for the scenario actions. */
const TOOLS = {
  spawn: (action, ctx) => {
    const def = ctx.scenario.agents.get(action.key);
    return { name: 'Agent', input: { description: def.description, prompt: def.prompt, subagent_type: typeOf(def.type ?? 'general-purpose'), run_in_background: isBackground(def) } };
  },
  shell: (action) => ({ name: 'Bash', input: { command: action.command, description: action.description, ...(action.background ? { run_in_background: true } : {}) } }),
  read: (action, ctx) => ({ name: 'Read', input: { path: join(ctx.cwd, action.path) } }),
  stop: (action, ctx) => ({ name: 'TaskStop', input: { task_id: ctx.agentIdOf(action.key) ?? action.key } }),
};

/**
 * Has task `id` ended in this conversation: its `<notification … type="task.…"
 * source_id="<id>">`, or a TaskStop result saying it was killed (a stopped
 * task sends no notification)?
 */
const notified = (messages, id) =>
  messages.some((m) => m.role !== 'assistant' && m.parts.some((p) => (p.type === 'text' || p.type === 'result') && (new RegExp(`<notification [^>]*type="task\\.(completed|failed|killed|timed_out|lost)"[^>]*source_id="${id}"`).test(p.text) || new RegExp(`^task_id: ${id}\nstatus: killed`, 'm').test(p.text))));

/** How Kimi Code is driven through a scenario. */
export const dialect = {
  name: 'kimi-code',
  callPrefix: 'call_',
  typeOf,
  call: (action, ctx) => dispatch(TOOLS, 'kimi-code', action, ctx),

  /** A background launch's task id (`task_id: <id>` on the result's first line). */
  agentIdFromLaunch: (text) => text.match(/^task_id:\s*(\S+)/m)?.[1] ?? null,

  /** A foreground launch settles with its result; a background one (`status: running`) with its notification. */
  settled({ launch, agentId, messages }) {
    if (!/^status: running/m.test(launch)) return true;
    return agentId !== null && notified(messages, agentId);
  },
};

export const cli = {
  name: 'kimi-code',
  bin: 'kimi',
  api: 'openai-chat',
  dialect,
  isBackground,
  /** What Kimi Code 2.1.0 cannot do, as measured. */
  unsupported: {
    ...notDriven('Kimi Code'),
    nested: 'no nesting in 2.1.0: a subagent is not offered the Agent tool (measured: explore, coder and plan are offered no Agent, toolsOffered of every capture)',
    fork: 'the Agent tool has no fork mode',
    send: 'no tool sends a message to a running subagent (Agent(resume=…) continues a finished one)',
    workflow: 'no workflow tool',
    compact: 'no headless compaction: `kimi --session <id> -p /compact` sends "/compact" to the model as a prompt in 2.1.0 (measured)',
  },
  /** `~/.kimi-code/config.toml`: the scripted server as provider `mock` of type `openai`, its model the default. */
  setup({ home, serverUrl }) {
    const dir = join(home, '.kimi-code');
    mkdirSync(dir, { recursive: true });
    const toml = `default_model = "mock-model"

[providers.mock]
type = "openai"
base_url = "${serverUrl}/v1"
api_key = "sk-scripted-model-server"

[models.mock-model]
provider = "mock"
model = "mock-model"
max_context_size = 200000
`;
    writeFileSync(join(dir, 'config.toml'), toml);
    return { '~/.kimi-code/config.toml': toml.replace(/127\.0\.0\.1:\d+/, '127.0.0.1:<port>') };
  },
  /** The Node 22 of the pin first on PATH (the CLI's `#!/usr/bin/env node`); telemetry and updates off. */
  env({ home }) {
    return {
      HOME: home,
      PATH: `${join(installDir('kimi-code'), 'node_modules', '.bin')}:${process.env.PATH}`,
      KIMI_DISABLE_TELEMETRY: '1',
      KIMI_CODE_NO_AUTO_UPDATE: '1',
    };
  },
  args(scenario) {
    return ['--output-format', 'stream-json', '-p', scenario.prompt];
  },
  /** The session the first run made (Kimi Code picks its id): the `session_id` its output names. */
  sessionIdFrom(stdout) {
    return stdout.match(/"session_id":"(session_[0-9a-f-]+)"/)?.[1] ?? null;
  },
  /** A later run of the session: `--session <id>` or `--continue`, with its prompt. */
  laterArgs(run, sessionId) {
    const head = ['--output-format', 'stream-json'];
    if (run.how === 'continue') return [...head, '--continue', '-p', run.prompt];
    return [...head, '--session', sessionId, '-p', run.prompt];
  },
  collect: [{ from: '.kimi-code/sessions', to: 'sessions' }],
  stdoutFile: 'output.jsonl',
};
