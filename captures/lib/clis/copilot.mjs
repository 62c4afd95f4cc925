// GitHub Copilot CLI (`@github/copilot`), headless: `copilot -p <prompt>`,
// talking to the scripted server as an OpenAI chat-completions API through
// its bring-your-own-key provider, offline (no GitHub login).
import { dispatch } from './tools.mjs';
import { join } from 'node:path';

/** Scenario types and Copilot's built-in agents; the others run as general-purpose. */
const TYPES = { Explore: 'explore', 'general-purpose': 'general-purpose', 'code-reviewer': 'code-review', Plan: 'general-purpose' };
const typeOf = (type) => TYPES[type] ?? 'general-purpose';

/** Copilot's tools for the scenario actions. */
const TOOLS = {
  spawn: (action, ctx) => {
    const def = ctx.scenario.agents.get(action.key);
    const mode = def.background === false || (def.background === undefined && def.depth > 1) ? 'sync' : 'background';
    return { name: 'task', input: { name: action.key, description: def.description, prompt: def.prompt, agent_type: typeOf(def.type ?? 'general-purpose'), mode } };
  },
  /** A background command runs `mode: async` under a shell id named after its task, which read_bash later reads. */
  shell: (action) => ({
    name: 'bash',
    input: { command: action.command, description: action.description, ...(action.background ? { mode: 'async', shellId: action.task ?? 'background', initial_wait: 30 } : {}) },
  }),
  read: (action, ctx) => ({ name: 'view', input: { path: join(ctx.cwd, action.path) } }),
  send: (action, ctx) => ({ name: 'write_agent', input: { agent_id: ctx.agentIdOf(action.key) ?? action.key, message: action.message } }),
};

/** What the model answers to `/compact`'s request for a summary (its sections), scripted from the story. */
const compactSummary = (scenario) =>
  `<overview>\nPrimary request: ${scenario.prompt}\n</overview>\n<history>\n${scenario.story.split('\n')[0]}\n</history>\n<checkpoint_title>Parser-kit reviews</checkpoint_title>`;

/** How Copilot CLI is driven through a scenario. */
export const dialect = {
  name: 'copilot',
  callPrefix: 'call_',
  typeOf,

  /** The CLI's own side request: `/compact`'s summary of the conversation (null for an agent's request). */
  side(conversation, scenario) {
    const last = conversation.messages.at(-1);
    const lastText = last?.role === 'user' ? last.parts.filter((p) => p.type === 'text').map((p) => p.text).join('\n') : '';
    return lastText.startsWith('Please create a detailed summary of the conversation so far') ? compactSummary(scenario) : null;
  },
  call: (action, ctx) => dispatch(TOOLS, 'copilot', action, ctx),

  /** A background launch's id: an agent's "… agent_id: <id>", a command's shell id. */
  agentIdFromLaunch(text) {
    return text.match(/agent_id:\s*([A-Za-z0-9_-]+)/)?.[1] ?? text.match(/shellId:\s*([A-Za-z0-9_-]+)/)?.[1] ?? null;
  },

  /**
   * A background agent settles once a read_agent result names it done (the
   * CLI reads each agent it is notified of); a background command once a
   * read_bash of it shows it exited.
   */
  settled({ launch, agentId, messages }) {
    if (!/in background|shellId/i.test(launch)) return true;
    return messages.some((m) => m.role !== 'assistant' && m.parts.some((p) => (p.type === 'text' || p.type === 'result') && p.text !== launch && p.text.includes(agentId) && /completed|failed|finished|idle|exit/i.test(p.text)));
  },

  /** Waiting for a background command: read it with a pause (agents notify on their own). */
  waitCalls(missing) {
    return missing.filter((m) => m.kind === 'shell' && m.agentId).map((m) => ({ name: 'read_bash', input: { shellId: m.agentId, delay: 5 } }));
  },
};

export const cli = {
  name: 'copilot',
  bin: 'copilot',
  api: 'openai-chat',
  dialect,
  /** Launches go to the background unless the scenario asks for the foreground; nested ones run in the foreground. */
  isBackground: (def) => def.background ?? def.depth === 1,
  /** What Copilot CLI 1.0.102 cannot do (its tools: task, read_agent, write_agent, list_agents). */
  unsupported: {
    workflow: 'no workflow tool',
    fork: 'task has no fork mode',
    stop: 'no tool stops a subagent',
  },
  env({ home, serverUrl }) {
    return {
      HOME: home,
      COPILOT_OFFLINE: 'true',
      COPILOT_PROVIDER_BASE_URL: `${serverUrl}/v1`,
      COPILOT_PROVIDER_TYPE: 'openai',
      COPILOT_PROVIDER_API_KEY: 'sk-scripted-model-server',
      COPILOT_MODEL: 'mock-model',
    };
  },
  /** OpenTelemetry to `url` (docs/formats.md §11.4): GenAI spans as http/json, batched each half second (its default posts once, at exit). */
  telemetryEnv(url) {
    return {
      COPILOT_OTEL_ENABLED: 'true',
      OTEL_EXPORTER_OTLP_ENDPOINT: url,
      OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
      OTEL_BSP_SCHEDULE_DELAY: '500',
      OTEL_METRIC_EXPORT_INTERVAL: '2000',
    };
  },
  args(scenario, { sessionId } = {}) {
    const named = sessionId ? ['--session-id', sessionId] : [];
    return ['--allow-all', '--no-auto-update', '--output-format', 'json', ...named, '-p', scenario.prompt];
  },
  /** A later run of the session: `--resume <id>` or `--continue` with its prompt, or `/compact`. */
  laterArgs(run, sessionId) {
    const head = ['--allow-all', '--no-auto-update', '--output-format', 'json'];
    if (run.how === 'compact') return [...head, '--resume', sessionId, '-p', '/compact'];
    if (run.how === 'continue') return [...head, '--continue', '-p', run.prompt];
    return [...head, '--resume', sessionId, '-p', run.prompt];
  },
  collect: [{ from: '.copilot/session-state', to: 'session-state' }],
  stdoutFile: 'output.jsonl',
};
