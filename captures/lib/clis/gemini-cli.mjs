// Gemini CLI (`@google/gemini-cli`), headless: `gemini -p <prompt>`, talking
// to the scripted server as the Gemini API (GOOGLE_GEMINI_BASE_URL).
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * Scenario types and Gemini CLI's agents: its built-ins for the two it has,
 * project agents (the workspace's `.gemini/agents/`) for the others.
 */
const TYPES = { Explore: 'codebase_investigator', 'general-purpose': 'generalist', Plan: 'planner' };

/** Gemini CLI's tools for the scenario actions. */
export const dialect = {
  name: 'gemini-cli',
  callPrefix: 'call_',
  typeOf: (type) => TYPES[type] ?? type,

  call(action, ctx) {
    switch (action.action) {
      case 'spawn': {
        const def = ctx.scenario.agents.get(action.key);
        return { name: 'invoke_agent', input: { agent_name: dialect.typeOf(def.type ?? 'general-purpose'), prompt: def.prompt } };
      }
      case 'shell': {
        const input = { command: action.command, description: action.description };
        if (action.background) input.is_background = true;
        return { name: 'run_shell_command', input };
      }
      case 'read':
        return { name: 'read_file', input: { file_path: join(ctx.cwd, action.path) } };
      case 'tool':
        return { name: action.name, input: action.input };
      default:
        throw new Error(`gemini-cli: no tool for action ${action.action}`);
    }
  },

  /** A background shell's process id (`Background PIDs: 123`). */
  agentIdFromLaunch(text) {
    return text.match(/Background PIDs?:\s*(\d+)/i)?.[1] ?? null;
  },

  /** invoke_agent blocks until the agent is done; a background shell settles when its output was read after it exited. */
  settled({ launch, agentId, messages }) {
    if (!/Background PIDs?:/i.test(launch)) return true;
    return messages.some((m) => m.parts.some((p) => p.type === 'result' && p.text.includes(agentId) && /exited|completed|finished|exit code/i.test(p.text) && p.text !== launch));
  },

  /** Waiting for a background shell: read its output, after a pause (the tool's own `delay_ms`). */
  shellWait(launch) {
    const pid = dialect.agentIdFromLaunch(launch);
    return pid ? [{ name: 'read_background_output', input: { pid: Number(pid), delay_ms: 2000 } }] : [];
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
    fork: 'invoke_agent has no fork mode',
    send: 'no tool sends a message to a running subagent',
    stop: 'invoke_agent blocks the calling turn; no tool stops a subagent',
    workflow: 'no workflow tool',
  },
  setup({ home }) {
    mkdirSync(join(home, '.gemini'), { recursive: true });
    const settings = {
      privacy: { usageStatisticsEnabled: false },
      telemetry: { enabled: false },
      general: { enableAutoUpdate: false, enableAutoUpdateNotification: false },
      security: { auth: { selectedType: 'gemini-api-key' } },
    };
    writeFileSync(join(home, '.gemini', 'settings.json'), `${JSON.stringify(settings, null, 2)}\n`);
    return { '~/.gemini/settings.json': settings };
  },
  env({ home, serverUrl }) {
    return { HOME: home, GEMINI_API_KEY: 'scripted-model-server', GOOGLE_GEMINI_BASE_URL: serverUrl, GEMINI_CLI_TRUST_WORKSPACE: 'true' };
  },
  args(scenario) {
    return ['-p', scenario.prompt, '--model', 'gemini-2.5-pro', '--yolo', '--output-format', 'json'];
  },
  collect: [{ from: '.gemini/tmp', to: 'tmp' }],
  stdoutFile: 'result.json',
};
