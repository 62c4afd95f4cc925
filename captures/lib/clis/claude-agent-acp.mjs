// The Claude ACP adapter (`@agentclientprotocol/claude-agent-acp`, formerly
// `@zed-industries/claude-agent-acp`), driven over stdio as an ACP client
// would drive it (kandev does): initialize, session/new, session/prompt,
// permission requests allowed. It runs the Claude Code its SDK bundles,
// against the scripted server; its frames are recorded as `acp-frames.jsonl`.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { driveAcp } from '../acp-client.mjs';
import { cli as claudeCode, dialect } from './claude-code.mjs';

export const cli = {
  name: 'claude-agent-acp',
  bin: 'claude-agent-acp',
  api: 'anthropic',
  dialect,
  isBackground: claudeCode.isBackground,

  /** The same environment as Claude Code's own runs: the adapter passes it to the CLI it starts. */
  env: claudeCode.env,

  args: () => [],

  drive(child, { scenario, dirs, onLine }) {
    return driveAcp(child, {
      prompt: scenario.prompt,
      cwd: dirs.work,
      onFrame: (direction, frame) => {
        if (frame.method && frame.method !== 'session/update') onLine(`acp ${direction === 'in' ? '<-' : '->'} ${frame.method}`);
      },
    });
  },

  /** The Claude Code release the adapter's SDK bundles. */
  bundled(installDir) {
    const sdk = JSON.parse(readFileSync(join(installDir, 'node_modules', '@anthropic-ai', 'claude-agent-sdk', 'package.json'), 'utf8'));
    return { '@anthropic-ai/claude-agent-sdk': sdk.version, 'claude-code': sdk.claudeCodeVersion ?? null };
  },

  collect: [{ from: '.claude/projects', to: 'projects' }],
  transcriptFile: 'acp-frames.jsonl',
};
