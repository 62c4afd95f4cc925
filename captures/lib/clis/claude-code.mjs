// Claude Code (`@anthropic-ai/claude-code`), headless: `claude -p <prompt>
// --output-format json`, talking to the scripted server as its Anthropic API.
// Its files are `~/.claude/projects/<slug>/<session>.jsonl` with the session's
// folder beside it (subagents, workflows, tool results).
import { workflowScript } from '../workflow.mjs';
import { settledBy } from './notify.mjs';
import { agentCall, dispatch, readCall, shellCall } from './tools.mjs';

/** Claude Code's tools for the scenario actions. */
const TOOLS = {
  spawn: agentCall('Agent', (type) => type),
  shell: shellCall('Bash', 'run_in_background'),
  read: readCall('Read'),
  send: (action, ctx) => ({ name: 'SendMessage', input: { to: ctx.agentIdOf(action.key) ?? action.key, message: action.message } }),
  stop: (action, ctx) => ({ name: 'TaskStop', input: { task_id: ctx.agentIdOf(action.key) ?? action.key } }),
  workflow: (action, ctx) => ({ name: 'Workflow', input: { script: workflowScript(action, ctx.scenario, (type) => type) } }),
};

/** The tools that must be loaded with ToolSearch before their first call. */
const DEFERRED = { send: 'SendMessage', stop: 'TaskStop' };

/** What the model answers to `/compact`'s request for a summary: the story so far, scripted. */
const compactSummary = (scenario) => `<summary>\n1. Primary request: ${scenario.prompt}\n2. ${scenario.story.split('\n')[0]}\n</summary>`;

/** How Claude Code is driven through a scenario. */
export const dialect = {
  name: 'claude-code',
  callPrefix: 'toolu_01',
  typeOf: (type) => type,

  /**
   * The CLI's own side requests (the SDK makes them; `claude -p` does not):
   * a session title (JSON `{ title }`), a prompt suggestion (none), anything
   * else offered no tools ("OK."). Null for an agent's request.
   */
  side(conversation, scenario) {
    const last = conversation.messages.at(-1);
    const lastText = last?.role === 'user' ? last.parts.filter((p) => p.type === 'text').map((p) => p.text).join('\n') : '';
    if (lastText.startsWith('[SUGGESTION MODE:')) return '';
    if (lastText.includes('create a detailed summary of the conversation')) return compactSummary(scenario);
    if (conversation.tools.length > 0) return null;
    if (conversation.system.includes('You are naming a coding session')) return JSON.stringify({ title: scenario.title });
    return 'OK.';
  },

  call: (action, ctx) => dispatch(TOOLS, 'claude-code', action, ctx),

  /** A ToolSearch call that loads the deferred tools a step needs, or null. */
  loadTools(step, offered) {
    const missing = [...new Set(step.parts.map((p) => DEFERRED[p.action]).filter((t) => t && !offered.includes(t)))];
    return missing.length ? { name: 'ToolSearch', input: { query: `select:${missing.join(',')}` } } : null;
  },

  /** The task id in a launch result: `agentId: a1b2…`, a shell's or a workflow's id. */
  agentIdFromLaunch(text) {
    const m = text.match(/agentId:\s*([A-Za-z0-9_-]+)/) ?? text.match(/\bID:\s*([A-Za-z0-9_-]+)/i) ?? text.match(/\b(wf_[a-z0-9-]+)/);
    return m?.[1] ?? null;
  },

  /** A background launch (an agent, a shell, a workflow) settles with its `<task-notification>`. */
  settled: settledBy(/launched|in the background|in background|\bwf_/i),
};

/** How to run it. */
export const cli = {
  name: 'claude-code',
  bin: 'claude',
  api: 'anthropic',
  dialect,

  /** A launch that does not choose runs in the background at depth 1 and in the foreground when nested. */
  isBackground: (def) => def.background ?? def.depth === 1,

  /** Environment for one run: the server as the API, a throwaway HOME, every phone-home off. */
  env({ home, serverUrl, tmp, maxRetries }) {
    return {
      ...(maxRetries ? { CLAUDE_CODE_MAX_RETRIES: String(maxRetries) } : {}),
      HOME: home,
      ANTHROPIC_BASE_URL: serverUrl,
      ANTHROPIC_API_KEY: 'sk-ant-scripted-model-server',
      IS_SANDBOX: '1',
      CLAUDE_CODE_TMPDIR: tmp,
      CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
      DISABLE_TELEMETRY: '1',
      DISABLE_ERROR_REPORTING: '1',
      DISABLE_AUTOUPDATER: '1',
      DISABLE_UPDATES: '1',
      DISABLE_GROWTHBOOK: '1',
      DO_NOT_TRACK: '1',
    };
  },

  /** OpenTelemetry to `url` (docs/formats.md §11.1): traces beta, logs, metrics, as http/json, flushed each second. */
  telemetryEnv(url) {
    return {
      CLAUDE_CODE_ENABLE_TELEMETRY: '1',
      CLAUDE_CODE_ENHANCED_TELEMETRY_BETA: '1',
      OTEL_TRACES_EXPORTER: 'otlp',
      OTEL_LOGS_EXPORTER: 'otlp',
      OTEL_METRICS_EXPORTER: 'otlp',
      OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
      OTEL_EXPORTER_OTLP_ENDPOINT: url,
      OTEL_TRACES_EXPORT_INTERVAL: '1000',
      OTEL_LOGS_EXPORT_INTERVAL: '1000',
      OTEL_METRIC_EXPORT_INTERVAL: '2000',
      OTEL_BSP_SCHEDULE_DELAY: '500',
    };
  },

  args(scenario, { sessionId } = {}) {
    const named = sessionId ? ['--session-id', sessionId] : [];
    return ['-p', scenario.prompt, ...named, '--output-format', 'json', '--dangerously-skip-permissions'];
  },

  /** A later run of the session: `--resume <id>` or `--continue` with its prompt, or `/compact`. */
  laterArgs(run, sessionId) {
    const tail = ['--output-format', 'json', '--dangerously-skip-permissions'];
    if (run.how === 'compact') return ['-p', '/compact', '--resume', sessionId, ...tail];
    if (run.how === 'continue') return ['-p', run.prompt, '--continue', ...tail];
    return ['-p', run.prompt, '--resume', sessionId, ...tail];
  },

  /** What a user would point taskview at: the projects folder, plus the `-p` JSON result. */
  collect: [{ from: '.claude/projects', to: 'projects' }],
  stdoutFile: 'result.json',
};
