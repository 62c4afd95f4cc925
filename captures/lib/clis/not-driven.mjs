// The setups the harness drives only for Claude Code, qwen-code and Codex so
// far: any other CLI records the scenarios that need one as unsupported,
// saying that it is the harness, not the CLI, that does not do it.

/** Needs of the fork, hooks, MCP, custom-agent and worktree scenarios (lib/dsl.mjs needsOf). */
const SETUP_NEEDS = ['session-fork', 'hooks', 'deny', 'mcp', 'custom-agents', 'worktree'];

/** `unsupported` entries for the setups `cli` is not driven through, minus those it has a measured reason for (`except`). */
export function notDriven(cli, except = []) {
  return Object.fromEntries(
    SETUP_NEEDS.filter((need) => !except.includes(need)).map((need) => [need, `not driven: the harness sets up ${need} for Claude Code, qwen-code and Codex only; ${cli} was not tried`]),
  );
}
