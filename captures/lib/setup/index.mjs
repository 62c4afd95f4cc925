// What a scenario sets up around a CLI (`setup` in scenario(), lib/dsl.mjs),
// in the pieces every dialect shares: the helper scripts copied into the run
// folder (so their paths are the same on every run), the command of a
// blocking hook, an MCP server's command, and a custom agent's definition
// file. Each CLI's module (lib/clis/) puts them into its own configuration.
import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const HERE = dirname(fileURLToPath(import.meta.url));

/** The scripts a run may need: the hook guard and the MCP servers. */
const HELPERS = ['hook-guard.mjs', 'mcp-notes.mjs'];

/** Copies the helper scripts into `<root>/helpers/`; returns that folder. */
export function installHelpers(root) {
  const dir = join(root, 'helpers');
  mkdirSync(dir, { recursive: true });
  for (const file of HELPERS) copyFileSync(join(HERE, file), join(dir, file));
  return dir;
}

/** A single-quoted shell word. */
const quote = (s) => `'${String(s).replace(/'/g, `'\\''`)}'`;

/** The shell command of a hook that blocks a tool call whose input contains `pattern`, giving `reason`. */
export const hookCommand = (helpers, { pattern, reason }) => [process.execPath, join(helpers, 'hook-guard.mjs'), pattern, reason].map(quote).join(' ');

/** How to start MCP server `name` over stdio: `{ command, args }`. */
export function mcpServer(helpers, name) {
  if (name !== 'notes') throw new Error(`no MCP server "${name}" in the harness`);
  return { command: process.execPath, args: [join(helpers, 'mcp-notes.mjs')] };
}

/**
 * A custom agent's definition as Claude Code and qwen-code read it: markdown
 * with a front matter of name, description, tools and model.
 */
export function agentMarkdown(name, { description, tools, model, body }) {
  const front = [`name: ${name}`, `description: ${description}`, ...(tools ? [`tools: ${tools.join(', ')}`] : []), ...(model ? [`model: ${model}`] : [])];
  return `---\n${front.join('\n')}\n---\n${body.trim()}\n`;
}

/** Makes `work` a git repository with one commit of what it holds (fixed author and dates, so the commit is the same on every run). */
export function gitInit(work) {
  const env = { ...process.env, GIT_AUTHOR_NAME: 'taskview captures', GIT_AUTHOR_EMAIL: 'captures@taskview.invalid', GIT_AUTHOR_DATE: '2026-01-01T00:00:00Z', GIT_COMMITTER_NAME: 'taskview captures', GIT_COMMITTER_EMAIL: 'captures@taskview.invalid', GIT_COMMITTER_DATE: '2026-01-01T00:00:00Z' };
  const git = (...args) => execFileSync('git', args, { cwd: work, env, stdio: 'ignore' });
  git('init', '-q', '-b', 'main');
  git('add', '-A');
  git('commit', '-q', '-m', 'parser-kit');
}
