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
