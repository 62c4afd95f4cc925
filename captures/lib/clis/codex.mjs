// OpenAI Codex (`@openai/codex`), headless: `codex exec <prompt>`, talking to
// the scripted server as an OpenAI Responses API (a custom model provider).
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { hookCommand, mcpServer } from '../setup/index.mjs';
import { dispatch } from './tools.mjs';

/** Codex's tools for the scenario actions (the subagent tools live in the `multi_agent_v1` namespace). */
const TOOLS = {
  spawn: (action, ctx) => {
    const def = ctx.scenario.agents.get(action.key);
    return { name: 'spawn_agent', input: { message: def.prompt, ...(def.fork ? { fork_context: true } : {}) } };
  },
  shell: (action, ctx) => ({ name: 'exec_command', input: { cmd: action.command, workdir: ctx.cwd, ...(action.background ? { yield_time_ms: 250 } : {}) } }),
  read: (action, ctx) => ({ name: 'exec_command', input: { cmd: `cat ${action.path}`, workdir: ctx.cwd } }),
  send: (action, ctx) => ({ name: 'send_input', input: { target: ctx.agentIdOf(action.key) ?? action.key, message: action.message } }),
  stop: (action, ctx) => ({ name: 'close_agent', input: { target: ctx.agentIdOf(action.key) ?? action.key } }),
  // An MCP server's tools are a namespace (`mcp__<server>`) of their own: the call names the tool, the wire its namespace.
  mcp: (action) => ({ name: action.tool, input: action.args }),
};

/** `--dangerously-bypass-hook-trust` when the scenario sets up hooks: Codex skips a hook nobody trusted (its definition's hash kept in config.toml), without a word. */
const hookTrust = (scenario) => (scenario?.setup?.hooks?.length ? ['--dangerously-bypass-hook-trust'] : []);

/** A TOML string (JSON's escapes are TOML's basic-string escapes). */
const toml = (s) => JSON.stringify(s);

/**
 * The `config.toml` lines of a scenario's setup: a PreToolUse hook per
 * blocked pattern (the guard reads the call) and its MCP servers.
 */
function setupLines(setup, helpers) {
  const lines = [];
  for (const hook of setup.hooks ?? []) {
    lines.push('[[hooks.PreToolUse]]', '[[hooks.PreToolUse.hooks]]', 'type = "command"', `command = ${toml(hookCommand(helpers, hook))}`, '');
  }
  for (const name of setup.mcpServers ?? []) {
    const { command, args } = mcpServer(helpers, name);
    lines.push(`[mcp_servers.${name}]`, `command = ${toml(command)}`, `args = [${args.map(toml).join(', ')}]`, '');
  }
  return lines;
}

/**
 * `~/.codex/rules/default.rules` for a scenario's denied reads: an
 * execpolicy rule forbidding the command that reads the file (Codex reads
 * files with commands).
 */
function denyRules(setup) {
  return (setup.deny ?? []).map((rule) => `prefix_rule(pattern = ["cat", ${toml(rule.read)}], decision = "forbidden", justification = ${toml(`${rule.read} holds secrets and may not be read`)})`);
}

/** How Codex is driven through a scenario. */
export const dialect = {
  name: 'codex',
  callPrefix: 'call_',

  /** spawn_agent takes no agent type (in this release, with multi_agent v1): every subagent is the default agent. */
  typeOf: () => null,
  call: (action, ctx) => dispatch(TOOLS, 'codex', action, ctx),

  /** A spawned agent's id (`{"agent_id": …}`), or a command's session id when it still runs. */
  agentIdFromLaunch(text) {
    const agent = text.match(/"agent_id"\s*:\s*"([^"]+)"/)?.[1];
    return agent ?? text.match(/session ID:?\s*(\d+)/i)?.[1] ?? null;
  },

  /**
   * A spawned agent settles when a wait_agent result or a notification gives
   * it a final status; a command left running, when a poll shows it exited.
   */
  settled({ launch, agentId, messages }) {
    if (!agentId) return true;
    const shell = !/agent_id/.test(launch);
    const final = shell ? /exited|exit code/i : /completed|errored|failed|shutdown|interrupted|cancelled|not_?found/i;
    return messages.some((m) => m.role !== 'assistant' && m.parts.some((p) => (p.type === 'text' || p.type === 'result') && p.text !== launch && (shell || p.text.includes(agentId)) && final.test(p.text)));
  },

  /**
   * Finished agents stay open and count against the thread limit until
   * closed: once a wait is over, the parent closes the agents it waited for.
   */
  closeCalls(tasks) {
    return tasks.filter((t) => t.kind === 'agent' && t.agentId && /agent_id/.test(t.launch)).map((t) => ({ name: 'close_agent', input: { target: t.agentId } }));
  },

  /**
   * Waiting: wait_agent on the agents' ids (it returns when one of them
   * ends, or after a minute); a running command is polled with write_stdin.
   */
  waitCalls(missing) {
    const targets = missing.filter((m) => m.kind === 'agent' && m.agentId).map((m) => m.agentId);
    const polls = missing.filter((m) => m.kind === 'shell' && m.agentId).map((m) => ({ name: 'write_stdin', input: { session_id: Number(m.agentId), yield_time_ms: 5000 } }));
    return [...(targets.length ? [{ name: 'wait_agent', input: { targets, timeout_ms: 60_000 } }] : []), ...polls];
  },
};

/** Features switched off: each reaches a host beyond 127.0.0.1 on start-up (seen as refused CONNECTs). */
const OFF = ['apps', 'plugins', 'remote_plugin', 'plugin_sharing', 'in_app_updates', 'skill_mcp_dependency_install'];

/**
 * `~/.codex/config.toml`: the server as the model provider; updates,
 * analytics, feedback and OpenTelemetry off; room for eight subagents at once,
 * nested three deep.
 */
function config(serverUrl, extra = []) {
  return [
    'model = "gpt-5-codex"',
    'model_provider = "scripted"',
    'check_for_update_on_startup = false',
    '',
    '[model_providers.scripted]',
    'name = "Scripted model server"',
    `base_url = "${serverUrl}/v1"`,
    'env_key = "SCRIPTED_API_KEY"',
    'wire_api = "responses"',
    '',
    '[analytics]',
    'enabled = false',
    '',
    '[feedback]',
    'enabled = false',
    '',
    '[otel]',
    'exporter = "none"',
    '',
    '# A wave of eight subagents at once (the default limit is six open threads), and nesting',
    '# three deep (by default a subagent cannot spawn)',
    '[agents]',
    'max_threads = 12',
    'max_depth = 3',
    '',
    '# Features that reach chatgpt.com or GitHub at start-up (plugins, apps, the update check)',
    '[features]',
    ...OFF.map((f) => `${f} = false`),
    '',
    ...extra,
  ].join('\n');
}

export const cli = {
  name: 'codex',
  bin: 'codex',
  api: 'openai-responses',
  dialect,
  /** spawn_agent never blocks: every subagent runs in the background, and wait_agent collects it. */
  isBackground: () => true,

  unsupported: {
    workflow: 'no workflow tool',
    compact: 'no headless compaction: `codex exec resume <id> /compact` sends "/compact" to the model as a prompt in 0.171.0 (measured; compaction is a TUI command)',
    worktree: 'spawn_agent runs a subagent in its parent\'s working directory: it takes no isolation (0.171.0, multi_agent v1; measured from the tool schema offered)',
    'custom-agents': 'spawn_agent takes no agent type (0.171.0\'s multi_agent v1: fork_context, items, message, model, reasoning_effort; measured from the tool schema offered), so no agent of the user\'s can be launched by name',
  },
  /** The scenario's setup, kept for env() (which writes config.toml once the server's URL is known), and its deny rules. */
  setup({ home, helpers, scenario }) {
    mkdirSync(join(home, '.codex'), { recursive: true });
    const setup = scenario?.setup ?? {};
    this.extra = setupLines(setup, helpers);
    const rules = denyRules(setup);
    if (!rules.length) return this.extra.length ? { '~/.codex/config.toml (added)': this.extra.join('\n') } : {};
    mkdirSync(join(home, '.codex', 'rules'), { recursive: true });
    writeFileSync(join(home, '.codex', 'rules', 'default.rules'), `${rules.join('\n')}\n`);
    return { '~/.codex/rules/default.rules': rules.join('\n'), ...(this.extra.length ? { '~/.codex/config.toml (added)': this.extra.join('\n') } : {}) };
  },
  env({ home, serverUrl }) {
    writeFileSync(join(home, '.codex', 'config.toml'), config(serverUrl, this.extra ?? []));
    return { HOME: home, CODEX_HOME: join(home, '.codex'), SCRIPTED_API_KEY: 'sk-scripted-model-server' };
  },
  /** A hook runs only once trusted: the harness wrote it itself (`--dangerously-bypass-hook-trust`, only where a scenario sets one up). */
  args(scenario, { work }) {
    return ['exec', '--json', '--skip-git-repo-check', '--dangerously-bypass-approvals-and-sandbox', ...hookTrust(scenario), '-C', work, scenario.prompt];
  },
  /** The session the first run made (Codex picks its id): `thread.started`'s `thread_id`. */
  sessionIdFrom(stdout) {
    return stdout.match(/"type":"thread\.started","thread_id":"([0-9a-f-]+)"/)?.[1] ?? null;
  },
  /** A later run of the session: `exec resume <id>` or `exec resume --last` with its prompt, or `exec fork <id>` (a new thread that copies this one's history). */
  laterArgs(run, sessionId) {
    const flags = ['--json', '--skip-git-repo-check', '--dangerously-bypass-approvals-and-sandbox'];
    if (run.how === 'fork') return ['exec', 'fork', ...flags, sessionId, run.prompt];
    const head = ['exec', 'resume', ...flags];
    if (run.how === 'continue') return [...head, '--last', run.prompt];
    return [...head, sessionId, run.prompt];
  },
  collect: [{ from: '.codex/sessions', to: 'sessions' }],
  stdoutFile: 'events.jsonl',
};
