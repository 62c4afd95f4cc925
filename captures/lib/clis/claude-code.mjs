// Claude Code (`@anthropic-ai/claude-code`), headless: `claude -p <prompt>
// --output-format json`, talking to the scripted server as its Anthropic API.
// Its files are `~/.claude/projects/<slug>/<session>.jsonl` with the session's
// folder beside it (subagents, workflows, tool results).
import { join } from 'node:path';

/** The tools that must be loaded with ToolSearch before their first call. */
const DEFERRED = { send: 'SendMessage', stop: 'TaskStop' };

/** Claude Code's tools for the scenario actions. */
export const dialect = {
  name: 'claude-code',
  callPrefix: 'toolu_01',
  sideReply: 'OK.',

  call(action, ctx) {
    switch (action.action) {
      case 'spawn': {
        const def = ctx.scenario.agents.get(action.key);
        const input = { description: def.description, prompt: def.prompt };
        if (def.fork) input.subagent_type = 'fork';
        else if (def.type) input.subagent_type = def.type;
        if (def.model) input.model = def.model;
        if (def.background !== undefined) input.run_in_background = def.background;
        return { name: 'Agent', input };
      }
      case 'shell': {
        const input = { command: action.command, description: action.description };
        if (action.background) input.run_in_background = true;
        return { name: 'Bash', input };
      }
      case 'read':
        return { name: 'Read', input: { file_path: join(ctx.cwd, action.path) } };
      case 'send':
        return { name: 'SendMessage', input: { to: ctx.agentIdOf(action.key) ?? action.key, message: action.message } };
      case 'stop':
        return { name: 'TaskStop', input: { task_id: ctx.agentIdOf(action.key) ?? action.key } };
      case 'workflow':
        return { name: 'Workflow', input: { script: workflowScript(action, ctx.scenario) } };
      case 'tool':
        return { name: action.name, input: action.input };
      default:
        throw new Error(`claude-code: no tool for action ${action.action}`);
    }
  },

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

  /**
   * A foreground launch has settled when its result arrived; a background one
   * when a `<task-notification>` for its agent id has reached the conversation.
   */
  settled({ launch, agentId, messages }) {
    if (!/launched|in the background|in background|\bwf_/i.test(launch)) return true;
    if (!agentId) return false;
    const tag = `<task-id>${agentId}</task-id>`;
    return messages.some((m) => m.role === 'user' && m.parts.some((p) => (p.type === 'text' || p.type === 'result') && p.text.includes(tag)));
  },
};

/** A Workflow script running the scenario agents of each phase in parallel, phase after phase. */
export function workflowScript(action, scenario) {
  const meta = { name: action.name, description: action.description, phases: action.phases.map((p) => ({ title: p.title })) };
  const lines = [`export const meta = ${JSON.stringify(meta, null, 2)}`, ''];
  const names = action.phases.map((p) => p.title.toLowerCase().replace(/[^a-z0-9]+/g, '_'));
  action.phases.forEach((phase, i) => {
    lines.push(`phase(${JSON.stringify(phase.title)})`, `const ${names[i]} = await parallel([`);
    for (const k of phase.keys) {
      const def = scenario.agents.get(k);
      const opts = { label: def.description, phase: phase.title, ...(def.type ? { agentType: def.type } : {}) };
      lines.push(`  () => agent(${JSON.stringify(def.prompt)}, ${JSON.stringify(opts)}),`);
    }
    lines.push('])', '');
  });
  lines.push(`return { ${names.join(', ')} }`);
  return lines.join('\n');
}

/** How to run it. */
export const cli = {
  name: 'claude-code',
  bin: 'claude',
  api: 'anthropic',
  dialect,

  /** A launch that does not choose runs in the background at depth 1 and in the foreground when nested. */
  isBackground: (def) => def.background ?? def.depth === 1,

  /** Environment for one run: the server as the API, a throwaway HOME, every phone-home off. */
  env({ home, serverUrl, tmp }) {
    return {
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

  args(scenario) {
    return ['-p', scenario.prompt, '--output-format', 'json', '--dangerously-skip-permissions'];
  },

  /** What a user would point taskview at: the projects folder, plus the `-p` JSON result. */
  collect: [{ from: '.claude/projects', to: 'projects' }],
  stdoutFile: 'result.json',
};
