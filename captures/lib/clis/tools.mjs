// Tool calls the CLIs spell alike: each dialect maps scenario actions to its
// tools with a table of these builders, and call() dispatches on it.
import { join } from 'node:path';

/**
 * A launch as Claude Code and qwen-code take it: description, prompt, type
 * ("fork" for a fork), background when asked, `isolation: "worktree"` when
 * the agent runs in a worktree of its own.
 */
export const agentCall = (name, typeOf) => (action, ctx) => {
  const def = ctx.scenario.agents.get(action.key);
  const input = { description: def.description, prompt: def.prompt };
  if (def.fork) input.subagent_type = 'fork';
  else if (def.type) input.subagent_type = typeOf(def.type);
  if (def.background !== undefined) input.run_in_background = def.background;
  if (def.isolation) input.isolation = def.isolation;
  return { name, input };
};

/** An MCP tool call by the name Claude Code and qwen-code give it: `mcp__<server>__<tool>`. */
export const mcpCall = (action) => ({ name: `mcp__${action.server}__${action.tool}`, input: action.args });

/** A shell command with its description; `flag` is the CLI's name for "run it in the background". */
export const shellCall = (name, flag) => (action) => ({
  name,
  input: { command: action.command, description: action.description, ...(action.background ? { [flag]: true } : {}) },
});

/** A file read by its absolute path. */
export const readCall = (name) => (action, ctx) => ({ name, input: { file_path: join(ctx.cwd, action.path) } });

/** The call for `action` from a dialect's `table` (action name → builder). */
export function dispatch(table, cli, action, ctx) {
  const build = table[action.action];
  if (!build) throw new Error(`${cli}: no tool for action ${action.action}`);
  return build(action, ctx);
}
