import assert from 'node:assert/strict';
import { test } from 'node:test';
import { answer, encodeTurn, foldMessage, parseRequest, sse } from '../lib/wire/anthropic.mjs';

const request = {
  model: 'claude-opus-5-5',
  stream: true,
  thinking: { type: 'adaptive', display: 'omitted' },
  system: [{ type: 'text', text: 'You are a Claude agent.' }, { type: 'text', text: 'Be brief.' }],
  tools: [{ name: 'Agent' }, { name: 'Bash' }],
  messages: [
    { role: 'user', content: 'Review it.' },
    { role: 'assistant', content: [{ type: 'thinking', thinking: 'hmm' }, { type: 'tool_use', id: 'toolu_1', name: 'Bash', input: { command: 'ls' } }] },
    { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: [{ type: 'text', text: 'src' }], is_error: true }, { type: 'text', text: 'next' }] },
    { role: 'system', content: [{ type: 'text', text: 'A mid-conversation system turn.' }] },
  ],
};

const opts = { model: 'claude-opus-5-5', seed: 's1', inputTokens: 42 };
const reply = { text: 'I will look.', thinking: 'First the parser.', calls: [{ id: 'toolu_2', name: 'Read', input: { file_path: '/work/src/parser.rs', limit: 40 } }] };

test('a Messages request reads as a conversation: system text, tool names, text / thinking / call / result parts, system turns kept', () => {
  const c = parseRequest(request);
  assert.equal(c.model, 'claude-opus-5-5');
  assert.equal(c.system, 'You are a Claude agent.\nBe brief.');
  assert.deepEqual(c.tools, ['Agent', 'Bash']);
  assert.equal(c.stream, true);
  assert.equal(c.hideThinking, true);
  assert.deepEqual(c.messages[0], { role: 'user', parts: [{ type: 'text', text: 'Review it.' }] });
  assert.deepEqual(c.messages[1].parts, [{ type: 'thinking', text: 'hmm' }, { type: 'call', id: 'toolu_1', name: 'Bash', input: { command: 'ls' } }]);
  assert.deepEqual(c.messages[2].parts, [{ type: 'result', id: 'toolu_1', text: 'src', isError: true }, { type: 'text', text: 'next' }]);
  assert.equal(c.messages[3].role, 'system');
  assert.ok(c.size > 0);
});

test('a turn streams as message_start, one block per thinking / text / tool_use, message_delta with usage, message_stop', () => {
  const events = encodeTurn(reply, opts);
  const types = events.map((e) => e.event);
  assert.equal(types[0], 'message_start');
  assert.deepEqual(types.slice(-2), ['message_delta', 'message_stop']);
  const starts = events.filter((e) => e.event === 'content_block_start').map((e) => [e.data.index, e.data.content_block.type]);
  assert.deepEqual(starts, [[0, 'thinking'], [1, 'text'], [2, 'tool_use']]);
  assert.equal(events.filter((e) => e.event === 'content_block_stop').length, 3);
  const delta = events.find((e) => e.event === 'message_delta').data;
  assert.equal(delta.delta.stop_reason, 'tool_use');
  assert.ok(delta.usage.output_tokens > 0);
  assert.equal(events[0].data.message.usage.input_tokens, 42);
  for (const e of events) assert.equal(e.data.type, e.event);
});

test('tool input streams as input_json_delta pieces that join into the call\'s input', () => {
  const long = { ...reply, calls: [{ id: 't', name: 'Bash', input: { command: 'x'.repeat(300), description: 'long' } }] };
  const pieces = encodeTurn(long, opts).filter((e) => e.data.delta?.type === 'input_json_delta').map((e) => e.data.delta.partial_json);
  assert.ok(pieces.length > 1);
  assert.deepEqual(JSON.parse(pieces.join('')), long.calls[0].input);
});

test('a turn without tool calls ends with stop_reason end_turn; an empty one still has one block', () => {
  const text = encodeTurn({ text: 'Done.', calls: [] }, opts);
  assert.equal(text.find((e) => e.event === 'message_delta').data.delta.stop_reason, 'end_turn');
  const empty = encodeTurn({ text: '', calls: [] }, opts);
  assert.equal(empty.filter((e) => e.event === 'content_block_start').length, 1);
});

test('with thinking display "omitted" the thinking block carries its signature and no text, as the API sends it', () => {
  const events = encodeTurn(reply, { ...opts, hideThinking: true });
  assert.equal(events.filter((e) => e.data.delta?.type === 'thinking_delta').length, 0);
  assert.equal(events.filter((e) => e.data.delta?.type === 'signature_delta').length, 1);
  assert.equal(foldMessage(events).content[0].thinking, '');
});

test('the message id depends only on the seed', () => {
  const id = (seed) => encodeTurn(reply, { ...opts, seed })[0].data.message.id;
  assert.equal(id('a'), id('a'));
  assert.notEqual(id('a'), id('b'));
  assert.match(id('a'), /^msg_01/);
});

test('a non-streaming request gets the folded message: the same content as the stream', () => {
  const out = answer(reply, { ...parseRequest(request), stream: false }, { seed: 's' });
  assert.equal(out.headers['content-type'], 'application/json');
  const message = JSON.parse(out.pieces.join(''));
  assert.deepEqual(message.content.map((b) => b.type), ['thinking', 'text', 'tool_use']);
  assert.deepEqual(message.content[2].input, reply.calls[0].input);
  assert.equal(message.stop_reason, 'tool_use');
});

test('SSE frames are "event: <type>" and one "data:" line of JSON', () => {
  assert.equal(sse({ event: 'ping', data: { type: 'ping' } }), 'event: ping\ndata: {"type":"ping"}\n\n');
});

test('an HTTP failure is the status with the API error body and x-should-retry', () => {
  const out = answer({ kind: 'fail', mode: 'http', status: 529, errorType: 'overloaded_error', message: 'Overloaded', retry: false }, parseRequest(request), { seed: 's' });
  assert.equal(out.status, 529);
  assert.equal(out.headers['x-should-retry'], 'false');
  assert.deepEqual(JSON.parse(out.pieces.join('')), { type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } });
});

test('a stream failure starts the message, then sends an error event', () => {
  const out = answer({ kind: 'fail', mode: 'stream', errorType: 'overloaded_error', message: 'Overloaded' }, parseRequest(request), { seed: 's' });
  assert.equal(out.status, 200);
  assert.match(out.pieces[0], /^event: message_start\n/);
  assert.equal(out.pieces.at(-1), 'event: error\ndata: {"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}\n\n');
});
