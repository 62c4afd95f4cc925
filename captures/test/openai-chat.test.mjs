import assert from 'node:assert/strict';
import { test } from 'node:test';
import { answer, encodeTurn, parseRequest } from '../lib/wire/openai-chat.mjs';

const request = {
  model: 'qwen3-coder-plus',
  stream: true,
  stream_options: { include_usage: true },
  tools: [{ type: 'function', function: { name: 'agent' } }, { type: 'function', function: { name: 'read_file' } }],
  messages: [
    { role: 'system', content: 'You are Qwen Code.' },
    { role: 'user', content: [{ type: 'text', text: 'Review it.' }] },
    { role: 'assistant', content: 'Looking.', reasoning_content: 'hmm', tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'read_file', arguments: '{"file_path":"/w/a.rs"}' } }] },
    { role: 'tool', tool_call_id: 'call_1', content: [{ type: 'text', text: 'fn main() {}' }] },
    { role: 'user', content: '<task-notification>…</task-notification>' },
  ],
};

const opts = { model: 'qwen3-coder-plus', seed: 's', inputTokens: 50, created: 1 };
const reply = { text: 'Two agents.', thinking: 'Split it.', calls: [{ id: 'call_a', name: 'agent', input: { description: 'x', prompt: 'y'.repeat(100) } }, { id: 'call_b', name: 'read_file', input: { file_path: '/w/b.rs' } }] };

/** Reassembles streamed chunks as a client does. */
function fold(chunks) {
  const out = { content: '', reasoning: '', calls: [], finish: null, usage: null };
  for (const c of chunks) {
    if (c.usage) out.usage = c.usage;
    for (const choice of c.choices) {
      const d = choice.delta;
      if (d.content) out.content += d.content;
      if (d.reasoning_content) out.reasoning += d.reasoning_content;
      for (const t of d.tool_calls ?? []) {
        out.calls[t.index] ??= { id: t.id, name: t.function.name, arguments: '' };
        out.calls[t.index].arguments += t.function.arguments ?? '';
      }
      if (choice.finish_reason) out.finish = choice.finish_reason;
    }
  }
  return out;
}

test('a chat-completions request reads as a conversation: leading system text, tools, calls with parsed arguments, tool results', () => {
  const c = parseRequest(request);
  assert.equal(c.system, 'You are Qwen Code.');
  assert.deepEqual(c.tools, ['agent', 'read_file']);
  assert.equal(c.usage, true);
  assert.deepEqual(c.messages[0], { role: 'user', parts: [{ type: 'text', text: 'Review it.' }] });
  assert.deepEqual(c.messages[1].parts, [
    { type: 'thinking', text: 'hmm' },
    { type: 'text', text: 'Looking.' },
    { type: 'call', id: 'call_1', name: 'read_file', input: { file_path: '/w/a.rs' } },
  ]);
  assert.deepEqual(c.messages[2], { role: 'tool', parts: [{ type: 'result', id: 'call_1', text: 'fn main() {}', isError: false }] });
  assert.equal(c.messages[3].parts[0].text, '<task-notification>…</task-notification>');
});

test('a turn streams as chunks that a client folds back into the reply: reasoning, text, tool calls by index, finish reason, usage', () => {
  const chunks = encodeTurn(reply, opts);
  assert.deepEqual(chunks[0].choices[0].delta, { role: 'assistant', content: '' });
  assert.ok(chunks.every((c) => c.object === 'chat.completion.chunk' && c.id === chunks[0].id));
  const folded = fold(chunks);
  assert.equal(folded.content, 'Two agents.');
  assert.equal(folded.reasoning, 'Split it.');
  assert.deepEqual(folded.calls.map((c) => [c.id, c.name, JSON.parse(c.arguments)]), reply.calls.map((c) => [c.id, c.name, c.input]));
  assert.equal(folded.finish, 'tool_calls');
  assert.equal(folded.usage.prompt_tokens, 50);
  assert.equal(folded.usage.total_tokens, folded.usage.prompt_tokens + folded.usage.completion_tokens);
});

test('a text-only turn finishes with "stop"; without include_usage there is no usage chunk', () => {
  const chunks = encodeTurn({ text: 'Done.', calls: [] }, { ...opts, usage: false });
  assert.equal(fold(chunks).finish, 'stop');
  assert.equal(chunks.filter((c) => c.usage).length, 0);
});

test('the SSE body is "data:" frames ending with [DONE]; a non-streaming request gets one chat.completion', () => {
  const streamed = answer(reply, parseRequest(request), { seed: 's' });
  assert.equal(streamed.pieces.at(-1), 'data: [DONE]\n\n');
  assert.ok(streamed.pieces.slice(0, -1).every((p) => p.startsWith('data: {')));
  const single = JSON.parse(answer(reply, { ...parseRequest(request), stream: false }, { seed: 's' }).pieces[0]);
  assert.equal(single.object, 'chat.completion');
  assert.equal(single.choices[0].message.tool_calls[0].function.arguments, JSON.stringify(reply.calls[0].input));
  assert.equal(single.choices[0].finish_reason, 'tool_calls');
});

test('failures: an HTTP status with the OpenAI error body, or a stream that ends in an error frame', () => {
  const http = answer({ kind: 'fail', mode: 'http', status: 500, errorType: 'api_error', message: 'boom' }, parseRequest(request), { seed: 's' });
  assert.equal(http.status, 500);
  assert.deepEqual(JSON.parse(http.pieces[0]).error, { message: 'boom', type: 'api_error', param: null, code: '500' });
  const stream = answer({ kind: 'fail', mode: 'stream', errorType: 'overloaded_error', message: 'Overloaded' }, parseRequest(request), { seed: 's' });
  assert.equal(stream.status, 200);
  assert.deepEqual(JSON.parse(stream.pieces.at(-1).slice('data: '.length)), { error: { message: 'Overloaded', type: 'overloaded_error', param: null, code: null } });
});
