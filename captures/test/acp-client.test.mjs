import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { test } from 'node:test';
import { allowOption, driveAcp } from '../lib/acp-client.mjs';

// A stand-in ACP agent: answers initialize and session/new, and on
// session/prompt sends an update, asks for a permission and an unknown client
// method, then ends the turn.
const AGENT = `
const rl = require('node:readline').createInterface({ input: process.stdin });
const out = (m) => process.stdout.write(JSON.stringify(m) + '\\n');
let prompt;
rl.on('line', (line) => {
  const m = JSON.parse(line);
  if (m.method === 'initialize') out({ jsonrpc: '2.0', id: m.id, result: { protocolVersion: 1, agentCapabilities: {} } });
  else if (m.method === 'session/new') out({ jsonrpc: '2.0', id: m.id, result: { sessionId: 's1' } });
  else if (m.method === 'session/prompt') {
    prompt = m.id;
    out({ jsonrpc: '2.0', method: 'session/update', params: { sessionId: 's1', update: { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: 'Hi' } } } });
    out({ jsonrpc: '2.0', id: 100, method: 'session/request_permission', params: { sessionId: 's1', toolCall: { toolCallId: 't' }, options: [{ optionId: 'no', kind: 'reject_once' }, { optionId: 'yes', kind: 'allow_once' }] } });
    out({ jsonrpc: '2.0', id: 101, method: 'fs/read_text_file', params: { path: '/x' } });
  } else if (m.id === 101) out({ jsonrpc: '2.0', id: prompt, result: { stopReason: 'end_turn' } });
});
rl.on('close', () => process.exit(0));
`;

test('allowOption prefers allow_once, then allow_always', () => {
  assert.equal(allowOption([{ optionId: 'r', kind: 'reject_once' }, { optionId: 'a', kind: 'allow_always' }, { optionId: 'o', kind: 'allow_once' }]).optionId, 'o');
  assert.equal(allowOption([{ optionId: 'r', kind: 'reject_once' }, { optionId: 'a', kind: 'allow_always' }]).optionId, 'a');
});

test('the ACP client runs one prompt turn, allows permissions, refuses what it does not implement, and records every frame both ways', async () => {
  const child = spawn(process.execPath, ['-e', AGENT], { stdio: ['pipe', 'pipe', 'inherit'] });
  const { outcome, frames } = await driveAcp(child, { prompt: 'Do it.', cwd: '/w', settleMs: 200 });
  assert.equal(outcome, 'done');
  const lines = frames.trim().split('\n').map((l) => JSON.parse(l));
  const methods = lines.map((f) => f.method ?? (f.result ? 'result' : 'error'));
  assert.deepEqual(methods, ['initialize', 'result', 'session/new', 'result', 'session/prompt', 'session/update', 'session/request_permission', 'result', 'fs/read_text_file', 'error', 'result']);
  assert.deepEqual(lines[4].params, { sessionId: 's1', prompt: [{ type: 'text', text: 'Do it.' }] });
  assert.deepEqual(lines[7], { jsonrpc: '2.0', id: 100, result: { outcome: { outcome: 'selected', optionId: 'yes' } } });
  assert.equal(lines[9].error.code, -32601);
  assert.deepEqual(lines.at(-1).result, { stopReason: 'end_turn' });
});

// A stand-in agent with one stored session `s0`: session/resume restores it,
// session/load replays its history first, session/list names it, and the
// `compact` command is offered once it is resumed (after a load the client
// waits for no command, so none is sent: its frame would race the prompt).
const STORED = `
const rl = require('node:readline').createInterface({ input: process.stdin });
const out = (m) => process.stdout.write(JSON.stringify(m) + '\\n');
const update = (u) => out({ jsonrpc: '2.0', method: 'session/update', params: { sessionId: 's0', update: u } });
const commands = () => update({ sessionUpdate: 'available_commands_update', availableCommands: [{ name: 'compact', description: 'Compact' }] });
rl.on('line', (line) => {
  const m = JSON.parse(line);
  if (m.method === 'initialize') out({ jsonrpc: '2.0', id: m.id, result: { protocolVersion: 1, agentCapabilities: { loadSession: true } } });
  else if (m.method === 'session/resume') { out({ jsonrpc: '2.0', id: m.id, result: {} }); commands(); }
  else if (m.method === 'session/list') out({ jsonrpc: '2.0', id: m.id, result: { sessions: [{ sessionId: 'old', updatedAt: '2026-01-01T00:00:00Z' }, { sessionId: 's0', updatedAt: '2026-02-01T00:00:00Z' }] } });
  else if (m.method === 'session/load') {
    update({ sessionUpdate: 'user_message_chunk', content: { type: 'text', text: 'Earlier.' } });
    out({ jsonrpc: '2.0', id: m.id, result: {} });
  } else if (m.method === 'session/prompt') out({ jsonrpc: '2.0', id: m.id, result: { stopReason: 'end_turn' } });
});
rl.on('close', () => process.exit(0));
`;

/** The methods of `frames` (JSONL), a response as `result`. */
const methodsOf = (frames) => frames.trim().split('\n').map((l) => JSON.parse(l)).map((f) => f.method ?? (f.result ? 'result' : 'error'));

test('a later run resumes the session by id with session/resume and waits for the command it sends', async () => {
  const child = spawn(process.execPath, ['-e', STORED], { stdio: ['pipe', 'pipe', 'inherit'] });
  const { outcome, frames, sessionId } = await driveAcp(child, { prompt: '/compact', cwd: '/w', open: { how: 'resume', sessionId: 's0' }, needsCommand: 'compact', settleMs: 100 });
  assert.equal(outcome, 'done');
  assert.equal(sessionId, 's0');
  assert.deepEqual(methodsOf(frames), ['initialize', 'result', 'session/resume', 'result', 'session/update', 'session/prompt', 'result']);
  assert.deepEqual(JSON.parse(frames.split('\n')[2]).params, { sessionId: 's0', cwd: '/w', mcpServers: [] });
});

test('a continuation lists the sessions, loads the newest (its history replayed first), then prompts', async () => {
  const child = spawn(process.execPath, ['-e', STORED], { stdio: ['pipe', 'pipe', 'inherit'] });
  const { outcome, frames, sessionId } = await driveAcp(child, { prompt: 'Go on.', cwd: '/w', open: { how: 'latest' }, settleMs: 100 });
  assert.equal(outcome, 'done');
  assert.equal(sessionId, 's0');
  assert.deepEqual(methodsOf(frames), ['initialize', 'result', 'session/list', 'result', 'session/load', 'session/update', 'result', 'session/prompt', 'result']);
});

test('a command the agent does not offer fails the run, naming what it offers', async () => {
  const child = spawn(process.execPath, ['-e', AGENT], { stdio: ['pipe', 'pipe', 'inherit'] });
  const { outcome } = await driveAcp(child, { prompt: '/compact', cwd: '/w', needsCommand: 'compact', commandWaitMs: 200, settleMs: 100 });
  assert.match(outcome, /^failed: the agent offers no "compact" command \(offered: none\)$/);
});

// A stand-in agent whose prompt turn runs until the client cancels it: on
// session/cancel it sends the update it had queued, then answers the prompt
// `CANCEL_ANSWER` (`cancelled`, another stop reason, or nothing at all).
const CANCELLABLE = `
const rl = require('node:readline').createInterface({ input: process.stdin });
const out = (m) => process.stdout.write(JSON.stringify(m) + '\\n');
const update = (text) => out({ jsonrpc: '2.0', method: 'session/update', params: { sessionId: 's1', update: { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text } } } });
let prompt;
rl.on('line', (line) => {
  const m = JSON.parse(line);
  if (m.method === 'initialize') out({ jsonrpc: '2.0', id: m.id, result: { protocolVersion: 1, agentCapabilities: {} } });
  else if (m.method === 'session/new') out({ jsonrpc: '2.0', id: m.id, result: { sessionId: 's1' } });
  else if (m.method === 'session/prompt') { prompt = m.id; update('Working.'); }
  else if (m.method === 'session/cancel' && process.env.CANCEL_ANSWER) {
    update('Queued before the cancel.');
    out({ jsonrpc: '2.0', id: prompt, result: { stopReason: process.env.CANCEL_ANSWER } });
  }
});
rl.on('close', () => process.exit(0));
`;

/** Drives CANCELLABLE, interrupting once its first update is in. */
async function cancelled(answer, options = {}) {
  const child = spawn(process.execPath, ['-e', CANCELLABLE], { stdio: ['pipe', 'pipe', 'inherit'], env: { ...process.env, CANCEL_ANSWER: answer } });
  let working;
  const interrupt = new Promise((resolve) => (working = resolve));
  const onFrame = (direction, frame) => frame.params?.update?.content?.text === 'Working.' && working();
  return driveAcp(child, { prompt: 'Do it.', cwd: '/w', interrupt, onFrame, settleMs: 100, finished: () => false, ...options });
}

test('interrupted, the client sends session/cancel, gets the prompt answered cancelled, and records what the agent still sends', async () => {
  const { outcome, frames } = await cancelled('cancelled');
  assert.equal(outcome, 'done');
  const lines = frames.trim().split('\n').map((l) => JSON.parse(l));
  assert.deepEqual(methodsOf(frames), ['initialize', 'result', 'session/new', 'result', 'session/prompt', 'session/update', 'session/cancel', 'session/update', 'result']);
  // A notification: no id, the session named.
  assert.deepEqual(lines[6], { jsonrpc: '2.0', method: 'session/cancel', params: { sessionId: 's1' } });
  assert.equal(lines[7].params.update.content.text, 'Queued before the cancel.');
  assert.deepEqual(lines[8], { jsonrpc: '2.0', id: lines[4].id, result: { stopReason: 'cancelled' } });
});

test('a cancel the agent answers with another stop reason fails the run, naming it', async () => {
  const { outcome } = await cancelled('end_turn');
  assert.equal(outcome, 'failed: the prompt was answered "end_turn" after session/cancel');
});

test('a cancel the agent never answers fails the run after the bounded wait', async () => {
  const { outcome, frames } = await cancelled('', { cancelWaitMs: 300 });
  assert.equal(outcome, 'failed: the prompt was not answered within 300 ms of session/cancel');
  assert.equal(methodsOf(frames).at(-1), 'session/cancel');
});
