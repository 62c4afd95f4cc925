// Gemini CLI (`@google/gemini-cli`), headless: `gemini -p <prompt>`, talking
// to the scripted server as the Gemini API (GOOGLE_GEMINI_BASE_URL).
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { dispatch, readCall, shellCall } from './tools.mjs';
import { notDriven } from './not-driven.mjs';

/**
 * Scenario types and Gemini CLI's agents: its built-ins for the two it has,
 * project agents (the workspace's `.gemini/agents/`) for the others.
 */
const TYPES = { Explore: 'codebase_investigator', 'general-purpose': 'generalist', Plan: 'planner' };
const typeOf = (type) => TYPES[type] ?? type;

/** The tool calls an agent made, one line each, for a structured report's trace. */
const explored = (conversation) =>
  conversation.messages.flatMap((m) => m.parts.filter((p) => p.type === 'call').map((p) => `${p.name} ${JSON.stringify(p.input)}`));

/** Gemini CLI's tools for the scenario actions. */
const TOOLS = {
  spawn: (action, ctx) => {
    const def = ctx.scenario.agents.get(action.key);
    return { name: 'invoke_agent', input: { agent_name: typeOf(def.type ?? 'general-purpose'), prompt: def.prompt } };
  },
  shell: shellCall('run_shell_command', 'is_background'),
  read: readCall('read_file'),
};

/** How Gemini CLI is driven through a scenario. */
export const dialect = {
  name: 'gemini-cli',
  callPrefix: 'call_',
  typeOf,

  call: (action, ctx) => dispatch(TOOLS, 'gemini-cli', action, ctx),

  /**
   * A Gemini subagent ends only by calling complete_task, whose arguments
   * follow its agent's output schema (offered in the request): a structured
   * report for codebase_investigator, `{ result: { response } }` for others.
   */
  finish(text, conversation) {
    const schema = conversation.schemas?.complete_task;
    if (!schema) return null;
    const props = schema.properties ?? {};
    if (props.report?.properties?.SummaryOfFindings) {
      return { name: 'complete_task', input: { report: { SummaryOfFindings: text, ExplorationTrace: explored(conversation), RelevantLocations: [] } } };
    }
    const [key, value] = Object.entries(props).find(([k]) => k !== 'wait_for_previous') ?? [];
    if (!key) return null;
    const inner = value.type === 'object' ? Object.keys(value.properties ?? {})[0] : null;
    return { name: 'complete_task', input: { [key]: inner ? { [inner]: text } : text } };
  },

  /** A background shell's process id (`Command moved to background (PID: 123)`). */
  agentIdFromLaunch(text) {
    return text.match(/\(PID:\s*(\d+)\)/)?.[1] ?? text.match(/Background PIDs?:\s*(\d+)/i)?.[1] ?? null;
  },

  /**
   * invoke_agent blocks until the agent is done; a background shell settles
   * when list_background_processes shows it no longer RUNNING.
   */
  settled({ launch, agentId, messages }) {
    if (!/moved to background|Background PIDs?:/i.test(launch)) return true;
    const listed = new RegExp(`\\[PID ${agentId}\\] (?!RUNNING)[A-Z]+`);
    return messages.some((m) => m.parts.some((p) => p.type === 'result' && listed.test(p.text)));
  },

  /** Waiting for a background shell: read its output after a pause (the tool's own `delay_ms`), then list the processes. */
  waitCalls(missing) {
    const shells = missing.filter((m) => m.kind === 'shell' && m.agentId);
    if (!shells.length) return [];
    return [...shells.map((m) => ({ name: 'read_background_output', input: { pid: Number(m.agentId), delay_ms: 2000 } })), { name: 'list_background_processes', input: { wait_for_previous: true } }];
  },
};

export const cli = {
  name: 'gemini-cli',
  bin: 'gemini',
  api: 'gemini',
  dialect,
  /** invoke_agent blocks the turn that calls it: every subagent runs in the foreground. */
  isBackground: () => false,

  /** What Gemini CLI 0.61 cannot do (its tool list has invoke_agent only, with no background, message, stop or fork). */
  unsupported: {
    ...notDriven('Gemini CLI'),
    compact: 'no headless compaction: `gemini -p /compress --resume <id>` sends "/compress" to the model as a prompt in 0.61.0 (measured; compression is a TUI command)',
    nested: 'subagents are not offered invoke_agent',
    fork: 'invoke_agent has no fork mode',
    send: 'no tool sends a message to a running subagent',
    stop: 'invoke_agent blocks the calling turn; no tool stops a subagent',
    workflow: 'no workflow tool',
    interrupt: 'subagents run one after the other in the foreground: two never run at once to be interrupted mid-wave (measured: the run reached the end of its script before both had started)',
  },
  /**
   * `~/.gemini/settings.json` (usage statistics, telemetry and updates off,
   * the API key as the auth method), and the project's agents acknowledged
   * (`~/.gemini/acknowledgments/agents.json`, what the trust dialog writes;
   * headless runs skip unacknowledged project agents).
   */
  setup({ home, work }) {
    mkdirSync(join(home, '.gemini', 'acknowledgments'), { recursive: true });
    const agentsDir = join(work, '.gemini', 'agents');
    const acknowledged = { [work]: Object.fromEntries(readdirSync(agentsDir).filter((f) => f.endsWith('.md')).map((f) => [f.slice(0, -3), createHash('sha256').update(readFileSync(join(agentsDir, f), 'utf8')).digest('hex')])) };
    writeFileSync(join(home, '.gemini', 'acknowledgments', 'agents.json'), JSON.stringify(acknowledged, null, 2));
    const settings = {
      privacy: { usageStatisticsEnabled: false },
      telemetry: { enabled: false },
      general: { enableAutoUpdate: false, enableAutoUpdateNotification: false },
      security: { auth: { selectedType: 'gemini-api-key' } },
    };
    writeFileSync(join(home, '.gemini', 'settings.json'), `${JSON.stringify(settings, null, 2)}\n`);
    return { '~/.gemini/settings.json': settings, '~/.gemini/acknowledgments/agents.json': acknowledged };
  },
  env({ home, serverUrl }) {
    return { HOME: home, GEMINI_API_KEY: 'scripted-model-server', GOOGLE_GEMINI_BASE_URL: serverUrl, GEMINI_CLI_TRUST_WORKSPACE: 'true' };
  },
  args(scenario, { sessionId } = {}) {
    const named = sessionId ? ['--session-id', sessionId] : [];
    return ['-p', scenario.prompt, '--model', 'gemini-2.5-pro', '--yolo', '--output-format', 'json', ...named];
  },
  /** A later run of the session: `--resume <id>` or `--resume latest` with its prompt. */
  laterArgs(run, sessionId) {
    const tail = ['--model', 'gemini-2.5-pro', '--yolo', '--output-format', 'json'];
    if (run.how === 'continue') return ['-p', run.prompt, '--resume', 'latest', ...tail];
    return ['-p', run.prompt, '--resume', sessionId, ...tail];
  },
  collect: [{ from: '.gemini/tmp', to: 'tmp' }],
  stdoutFile: 'result.json',
};
