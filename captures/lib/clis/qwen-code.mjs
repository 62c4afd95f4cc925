// qwen-code (`@qwen-code/qwen-code`), headless: `qwen -p <prompt>`, talking
// to the scripted server as an OpenAI chat-completions API.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { workflowScript } from '../workflow.mjs';
import { settledBy } from './notify.mjs';
import { agentCall, dispatch, readCall, shellCall } from './tools.mjs';

/** Tools qwen-code defers: a step first reviews their schema with tool_search, then calls them through tool_call. */
const DEFERRED = { send: 'send_message', stop: 'task_stop' };

/**
 * Scenario types qwen-code has no built-in agent for, and the project agent
 * that stands in (defined in the workspace's `.qwen/agents/`).
 */
const TYPES = { Plan: 'planner' };
const typeOf = (type) => TYPES[type] ?? type;

/** Has a background shell's status file been read saying it finished? */
function statusRead(messages, id) {
  const done = new RegExp(`"id":\\s*"${id}"[\\s\\S]*"status":\\s*"(completed|failed|cancelled)"`);
  return messages.some((m) => m.parts.some((p) => p.type === 'result' && done.test(p.text)));
}

/** qwen-code's tools for the scenario actions; send_message and task_stop are deferred, reached through tool_call. */
const TOOLS = {
  spawn: agentCall('agent', typeOf),
  shell: shellCall('run_shell_command', 'is_background'),
  read: readCall('read_file'),
  send: (action, ctx) => ({ name: 'tool_call', input: { name: 'send_message', arguments: { task_id: ctx.agentIdOf(action.key) ?? action.key, message: action.message } } }),
  stop: (action, ctx) => ({ name: 'tool_call', input: { name: 'task_stop', arguments: { task_id: ctx.agentIdOf(action.key) ?? action.key } } }),
  workflow: (action, ctx) => ({ name: 'workflow', input: { script: workflowScript(action, ctx.scenario, typeOf) } }),
};

/** How qwen-code is driven through a scenario. */
export const dialect = {
  name: 'qwen-code',
  callPrefix: 'call_',
  typeOf,

  /**
   * A background shell never notifies (and a headless turn that ends stops
   * it): its launch result says to read its status file. An agent waiting for
   * one sleeps briefly (qwen blocks any other foreground sleep) and reads it.
   * Agents notify on their own: waiting for them needs no call.
   */
  waitCalls(missing) {
    const statuses = missing.filter((m) => m.kind === 'shell').map((m) => m.launch.match(/^status file:\s*(\S+)/m)?.[1]);
    if (!statuses.length) return [];
    const pause = { name: 'run_shell_command', input: { command: 'sleep 2 # intentional-sleep: waiting for the background command', description: 'Wait for the background command' } };
    return [pause, ...statuses.filter(Boolean).map((file_path) => ({ name: 'read_file', input: { file_path } }))];
  },

  /** The managed-memory extractor runs after a turn with its own system prompt: a side request, answered "OK.". */
  side: (conversation, scenario) => {
    if (conversation.system.startsWith('You are now acting as the managed memory extraction subagent')) return 'OK.';
    return asksForSnapshot(conversation) ? stateSnapshot(scenario) : null;
  },

  call: (action, ctx) => dispatch(TOOLS, 'qwen-code', action, ctx),

  /** A tool_search that reviews the deferred tools a step calls, unless this conversation already did. */
  loadTools(step, offered, messages) {
    const reviewed = new Set(messages.flatMap((m) => m.parts.filter((p) => p.type === 'call' && p.name === 'tool_search').map((p) => p.input.query)));
    const missing = [...new Set(step.parts.map((p) => DEFERRED[p.action]).filter(Boolean))].filter((t) => ![...reviewed].some((q) => q.includes(t)));
    return missing.length ? { name: 'tool_search', input: { query: `select:${missing.join(',')}` } } : null;
  },

  /** The task id in a launch result: an agent's `task_id: <id> (internal ID …)`, a shell's `id: bg_…`. */
  agentIdFromLaunch(text) {
    return (text.match(/task_id:\s*([^\s(]+)/) ?? text.match(/^id:\s*(\S+)/m))?.[1] ?? null;
  },

  /** A background launch settles with its `<task-notification>`. */
  settled: settledBy(/launched successfully|background shell started|in the background|in background/i, statusRead),
};

/** Whether a request is `/compress` asking for the session's `<state_snapshot>` (in its system prompt or last message). */
function asksForSnapshot(conversation) {
  const last = conversation.messages.at(-1);
  const lastText = last?.role === 'user' ? last.parts.filter((p) => p.type === 'text').map((p) => p.text).join('\n') : '';
  return conversation.system.includes('<state_snapshot>') || lastText.includes('<state_snapshot>');
}

/** What the model answers to `/compress`: the story so far, scripted. */
const stateSnapshot = (scenario) => `<state_snapshot>\n<primary_request_and_intent>Primary request: ${scenario.prompt}</primary_request_and_intent>\n</state_snapshot>`;

/** The scripted server as qwen's OpenAI-compatible model, tools allowed, JSON out. */
const modelArgs = (serverUrl) => ['--auth-type', 'openai', '--openai-base-url', `${serverUrl}/v1`, '--openai-api-key', 'sk-scripted-model-server', '--model', 'qwen3-coder-plus', '--yolo', '--output-format', 'json'];

export const cli = {
  name: 'qwen-code',
  bin: 'qwen',
  api: 'openai-chat',
  dialect,
  /** Top-level launches run in the background unless they say otherwise; nested ones in the foreground. */
  isBackground: (def) => def.background ?? def.depth === 1,
  /** A background launch from inside a subagent is refused with an error result; nothing runs and no transcript is written. */
  refuses: (def) => (def.depth > 1 && def.background === true ? 'run_in_background is not supported from within a sub-agent' : null),
  /**
   * `~/.qwen/settings.json`: usage statistics, telemetry and auto-update off;
   * failed requests retried twice after 0.5 s and 1 s (the default is ten
   * times from 60 s on, which turns the failures scenario into half an hour).
   */
  setup({ home, otlpUrl = null }) {
    mkdirSync(join(home, '.qwen'), { recursive: true });
    const settings = {
      privacy: { usageStatisticsEnabled: false },
      // With --otlp: OpenTelemetry to the scripted server as http/json (docs/formats.md §11.1).
      telemetry: otlpUrl ? { enabled: true, otlpEndpoint: otlpUrl, otlpProtocol: 'http' } : { enabled: false },
      general: { enableAutoUpdate: false },
      model: { generationConfig: { maxRetries: 2, retryInitialDelayMs: 500, retryMaxDelayMs: 1000 } },
    };
    writeFileSync(join(home, '.qwen', 'settings.json'), `${JSON.stringify(settings, null, 2)}\n`);
    return { '~/.qwen/settings.json': settings };
  },
  /** Phone-home off (the settings file says it too); the Workflow tool on only where a scenario runs one (it is opt-in). */
  env({ home, needs }) {
    const env = { HOME: home, QWEN_USAGE_STATISTICS_ENABLED: 'false', QWEN_TELEMETRY_ENABLED: 'false', QWEN_CODE_SKIP_UPDATE_CHECK_ONCE: 'true' };
    if (needs.includes('workflow')) env.QWEN_CODE_ENABLE_WORKFLOWS = '1';
    return env;
  },
  /** With --otlp the env must not switch telemetry off again. */
  telemetryEnv(url) {
    return { QWEN_TELEMETRY_ENABLED: 'true', QWEN_TELEMETRY_OTLP_ENDPOINT: url, QWEN_TELEMETRY_OTLP_PROTOCOL: 'http' };
  },
  args(scenario, { serverUrl, sessionId }) {
    const named = sessionId ? ['--session-id', sessionId] : [];
    return ['-p', scenario.prompt, ...named, ...modelArgs(serverUrl)];
  },

  /** A later run of the session: `--resume <id>` or `--continue` with its prompt, or `/compress` (qwen's /compact). */
  laterArgs(run, sessionId, { serverUrl }) {
    if (run.how === 'compact') return ['-p', '/compress', '--resume', sessionId, ...modelArgs(serverUrl)];
    if (run.how === 'continue') return ['-p', run.prompt, '--continue', ...modelArgs(serverUrl)];
    return ['-p', run.prompt, '--resume', sessionId, ...modelArgs(serverUrl)];
  },
  collect: [{ from: '.qwen/projects', to: 'projects' }],
  stdoutFile: 'result.json',
};
