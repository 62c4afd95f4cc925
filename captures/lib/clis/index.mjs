// Every CLI the harness drives, in the order `make captures` runs them.
import { cli as claudeCode } from './claude-code.mjs';
import { cli as qwenCode } from './qwen-code.mjs';
import { cli as claudeAgentAcp } from './claude-agent-acp.mjs';
import { cli as geminiCli } from './gemini-cli.mjs';
import { cli as codex } from './codex.mjs';
import { cli as copilot } from './copilot.mjs';
import { cli as opencode } from './opencode.mjs';
import { cli as kimiCode } from './kimi-code.mjs';

export const CLIS = [claudeCode, qwenCode, claudeAgentAcp, geminiCli, codex, copilot, opencode, kimiCode];

/** The CLI named `name`, or an error that lists the names. */
export function cliNamed(name) {
  const found = CLIS.find((c) => c.name === name);
  if (!found) throw new Error(`no CLI "${name}"; there are: ${CLIS.map((c) => c.name).join(', ')}`);
  return found;
}
