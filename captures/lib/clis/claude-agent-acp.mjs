// The Claude ACP adapter (`@agentclientprotocol/claude-agent-acp`, formerly
// `@zed-industries/claude-agent-acp`), driven over stdio as an ACP client
// would drive it (kandev does): initialize, session/new, session/prompt,
// permission requests allowed; a later run of the session starts a new
// adapter process that resumes or loads it. It runs the Claude Code its SDK bundles,
// against the scripted server; its frames are recorded as `acp-frames.jsonl`
// (every JSON-RPC message of both directions, in order, as sent).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { driveAcp } from '../acp-client.mjs';
import { cli as claudeCode, dialect } from './claude-code.mjs';
import { notDriven } from './not-driven.mjs';

export const cli = {
  name: 'claude-agent-acp',
  bin: 'claude-agent-acp',
  api: 'anthropic',
  dialect,
  isBackground: claudeCode.isBackground,

  /** The same environment as Claude Code's own runs: the adapter passes it to the CLI it starts. */
  env: claudeCode.env,

  args: () => [],

  unsupported: notDriven('the ACP adapter'),

  /**
   * A client stops a turn with the `session/cancel` notification (SIGINT
   * would end the adapter process itself): the client sends it, awaits the
   * prompt's `cancelled` answer and the updates still queued, then closes
   * the adapter's stdin.
   */
  interruptsWith: 'session/cancel',

  /**
   * The session runs in "Manual" mode (`default`, set with session/set_mode):
   * the adapter asks the client before a command that changes things, and the
   * client allows it once. (The adapter's own default, "auto", asks a
   * classifier model about every tool call instead, which the scripted
   * server does not play.)
   */
  setup: () => ({ 'session/set_mode': 'default', permissions: 'each request answered allow_once' }),

  drive(child, { scenario, dirs, engine, onLine, interrupt }) {
    return driveAcp(child, {
      prompt: scenario.prompt,
      finished: () => engine.finished,
      interrupt,
      cwd: dirs.work,
      mode: 'default',
      onFrame: (direction, frame) => {
        if (frame.method && frame.method !== 'session/update') onLine(`acp ${direction === 'in' ? '<-' : '->'} ${frame.method}`);
      },
    });
  },

  /**
   * A later run of the session, as a client restarted after the previous
   * run drives a new adapter process: resumed by id with `session/resume`
   * (what kandev sends when the agent offers it: the agent restores the
   * session and replays nothing, the client keeps the history), `/compact`
   * the same way (sent as the prompt once the agent offers the `compact`
   * command), continued with `session/list` and `session/load` of the newest
   * session (a client reopening its latest conversation gets the history
   * replayed as `session/update`s).
   */
  driveLater(child, { run, sessionId, scenario, dirs, engine, onLine }) {
    const open = run.how === 'continue' ? { how: 'latest' } : { how: 'resume', sessionId };
    return driveAcp(child, {
      prompt: run.how === 'compact' ? '/compact' : run.prompt,
      open,
      needsCommand: run.how === 'compact' ? 'compact' : null,
      finished: () => run.how === 'compact' || engine.finishedAgent(run.key),
      cwd: dirs.work,
      mode: 'default',
      onFrame: (direction, frame) => {
        if (frame.method && frame.method !== 'session/update') onLine(`acp ${direction === 'in' ? '<-' : '->'} ${frame.method}`);
      },
    });
  },

  /** How a later run opened its session, for the manifest's `command.later`. */
  laterCommand: (run) => ({
    acp: run.how === 'continue' ? ['session/list', 'session/load', 'session/prompt'] : ['session/resume', 'session/prompt'],
    prompt: run.how === 'compact' ? '/compact' : run.prompt,
  }),

  /** The Claude Code release the adapter's SDK bundles. */
  bundled(installDir) {
    const sdk = JSON.parse(readFileSync(join(installDir, 'node_modules', '@anthropic-ai', 'claude-agent-sdk', 'package.json'), 'utf8'));
    return { '@anthropic-ai/claude-agent-sdk': sdk.version, 'claude-code': sdk.claudeCodeVersion ?? null };
  },

  /**
   * Only the frames: the session files the bundled (older) Claude Code writes
   * beside them repeat what the claude-code captures hold for the current
   * release, at five times the bytes.
   */
  collect: [],
  transcriptFile: 'acp-frames.jsonl',
};
