import assert from 'node:assert/strict';
import { test } from 'node:test';
import { dialect } from '../lib/clis/codex.mjs';
import { answer, encodeTurn, parseRequest } from '../lib/wire/openai-responses.mjs';

const request = {
  model: 'gpt-5-codex',
  stream: true,
  instructions: 'You are Codex.',
  tools: [{ type: 'function', name: 'exec_command' }, { type: 'namespace', name: 'multi_agent_v1', tools: [{ type: 'function', name: 'spawn_agent' }, { type: 'function', name: 'wait_agent' }] }],
  input: [
    { type: 'message', role: 'developer', content: [{ type: 'input_text', text: 'Be careful.' }] },
    { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'Review it.' }] },
    { type: 'reasoning', summary: [{ type: 'summary_text', text: 'Plan.' }] },
    { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'Spawning.' }] },
    { type: 'function_call', call_id: 'call_1', name: 'spawn_agent', namespace: 'multi_agent_v1', arguments: '{"message":"Go."}' },
    { type: 'function_call_output', call_id: 'call_1', output: '{"agent_id":"a-1","nickname":"Curie"}' },
    { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'next' }] },
  ],
};

test('a Responses request reads as a conversation: namespaced tools flattened, one assistant message per reply, outputs as results', () => {
  const c = parseRequest(request);
  assert.deepEqual(c.tools, ['exec_command', 'spawn_agent', 'wait_agent']);
  assert.deepEqual(c.namespaces, { spawn_agent: 'multi_agent_v1', wait_agent: 'multi_agent_v1' });
  assert.deepEqual(c.messages.map((m) => m.role), ['system', 'user', 'assistant', 'tool', 'user']);
  assert.deepEqual(c.messages[2].parts.map((p) => p.type), ['thinking', 'text', 'call']);
  assert.deepEqual(c.messages[2].parts[2].input, { message: 'Go.' });
  assert.deepEqual(c.messages[3].parts[0], { type: 'result', id: 'call_1', text: '{"agent_id":"a-1","nickname":"Curie"}', isError: false });
});

test('a turn streams as Responses events: created, items (reasoning summary, message text, calls with argument deltas), completed with usage', () => {
  const reply = { thinking: 'Plan.', text: 'Spawning.', calls: [{ id: 'call_a', name: 'spawn_agent', input: { message: 'x'.repeat(200) } }] };
  const events = encodeTurn(reply, { model: 'gpt-5-codex', seed: 's', inputTokens: 40, createdAt: 1, namespaces: { spawn_agent: 'multi_agent_v1' } });
  assert.deepEqual(events.map((e) => e.data.sequence_number), events.map((_, i) => i));
  assert.equal(events[0].event, 'response.created');
  assert.equal(events.at(-1).event, 'response.completed');
  const added = events.filter((e) => e.event === 'response.output_item.added').map((e) => e.data.item.type);
  assert.deepEqual(added, ['reasoning', 'message', 'function_call']);
  const text = events.filter((e) => e.event === 'response.output_text.delta').map((e) => e.data.delta).join('');
  assert.equal(text, 'Spawning.');
  const args = events.filter((e) => e.event === 'response.function_call_arguments.delta').map((e) => e.data.delta).join('');
  assert.deepEqual(JSON.parse(args), reply.calls[0].input);
  const done = events.at(-1).data.response;
  assert.equal(done.status, 'completed');
  assert.deepEqual(done.output.at(-1), { id: done.output.at(-1).id, type: 'function_call', status: 'completed', call_id: 'call_a', name: 'spawn_agent', namespace: 'multi_agent_v1', arguments: args });
  assert.equal(done.usage.input_tokens, 40);
});

test('failures: an HTTP error body, or a stream that ends in response.failed', () => {
  const c = parseRequest(request);
  const http = answer({ kind: 'fail', mode: 'http', status: 500, errorType: 'server_error', message: 'boom' }, c, { seed: 's' });
  assert.equal(http.status, 500);
  assert.equal(JSON.parse(http.pieces[0]).error.message, 'boom');
  const stream = answer({ kind: 'fail', mode: 'stream', errorType: 'overloaded_error', message: 'Overloaded' }, c, { seed: 's' });
  assert.match(stream.pieces.at(-1), /^event: response\.failed\n/);
});

test('codex: subagents are spawned, messaged and closed by the id spawn_agent returned; waiting is wait_agent on them', () => {
  assert.equal(dialect.agentIdFromLaunch('{"agent_id":"01a2-b","nickname":"Curie"}'), '01a2-b');
  const waits = dialect.waitCalls([{ kind: 'agent', agentId: 'a-1' }, { kind: 'agent', agentId: 'a-2' }]);
  assert.deepEqual(waits, [{ name: 'wait_agent', input: { targets: ['a-1', 'a-2'], timeout_ms: 60_000 } }]);
  const launch = '{"agent_id":"a-1","nickname":"Curie"}';
  const user = (text) => ({ role: 'tool', parts: [{ type: 'result', id: 'w', text, isError: false }] });
  assert.equal(dialect.settled({ launch, agentId: 'a-1', messages: [user('{"status":{}}')] }), false);
  assert.equal(dialect.settled({ launch, agentId: 'a-1', messages: [user('{"status":{"a-1":{"completed":"done"}}}')] }), true);
  const closes = dialect.closeCalls([{ kind: 'agent', agentId: 'a-1', launch }, { kind: 'shell', agentId: '7', launch: 'Process running with session ID 7' }]);
  assert.deepEqual(closes, [{ name: 'close_agent', input: { target: 'a-1' } }]);
});
