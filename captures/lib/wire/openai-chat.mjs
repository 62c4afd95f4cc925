// The OpenAI chat-completions API (POST /v1/chat/completions), as qwen-code
// speaks it: a request read into the engine's conversation, and an answer as
// `chat.completion.chunk` SSE (text, `reasoning_content`, streamed tool_calls,
// a usage chunk, `[DONE]`).
import { idFor } from '../ids.mjs';
import { tokens } from '../engine.mjs';
import { chunks } from './anthropic.mjs';

const text = (content) =>
  typeof content === 'string' ? content : (content ?? []).filter((p) => p.type === 'text').map((p) => p.text).join('\n');

const parseArgs = (raw) => {
  try {
    return JSON.parse(raw || '{}');
  } catch {
    return { raw };
  }
};

function message(m) {
  if (m.role === 'tool') return { role: 'tool', parts: [{ type: 'result', id: m.tool_call_id, text: text(m.content), isError: false }] };
  const parts = [];
  if (m.reasoning_content) parts.push({ type: 'thinking', text: m.reasoning_content });
  const body = text(m.content);
  if (body) parts.push({ type: 'text', text: body });
  for (const call of m.tool_calls ?? []) parts.push({ type: 'call', id: call.id, name: call.function?.name, input: parseArgs(call.function?.arguments) });
  return { role: m.role, parts };
}

/** A chat-completions request body as a conversation; leading system messages become `system`. */
export function parseRequest(body) {
  const all = body.messages ?? [];
  const lead = all.findIndex((m) => m.role !== 'system');
  const head = lead === -1 ? all : all.slice(0, lead);
  return {
    model: body.model,
    system: head.map((m) => text(m.content)).join('\n'),
    tools: (body.tools ?? []).map((t) => t.function?.name ?? t.name),
    messages: (lead === -1 ? [] : all.slice(lead)).map(message),
    stream: body.stream === true,
    usage: body.stream_options?.include_usage === true,
    size: tokens(JSON.stringify(all)),
  };
}

/**
 * The chunks of one answer: a role chunk, reasoning and text deltas, each tool
 * call (id and name first, then its arguments in pieces), the finish chunk,
 * and a usage chunk when the request asked for one.
 */
export function encodeTurn(answer, { model, seed, inputTokens, created, usage = true }) {
  const id = idFor('chatcmpl-', seed, 29);
  const chunk = (delta, finish = null) => ({ id, object: 'chat.completion.chunk', created, model, choices: [{ index: 0, delta, finish_reason: finish }] });
  const out = [chunk({ role: 'assistant', content: '' })];
  let output = 0;
  if (answer.thinking) {
    for (const piece of chunks(answer.thinking)) out.push(chunk({ reasoning_content: piece }));
    output += tokens(answer.thinking);
  }
  if (answer.text) {
    for (const piece of chunks(answer.text)) out.push(chunk({ content: piece }));
    output += tokens(answer.text);
  }
  answer.calls.forEach((call, index) => {
    out.push(chunk({ tool_calls: [{ index, id: call.id, type: 'function', function: { name: call.name, arguments: '' } }] }));
    const json = JSON.stringify(call.input);
    for (const piece of chunks(json, 64)) out.push(chunk({ tool_calls: [{ index, function: { arguments: piece } }] }));
    output += tokens(json);
  });
  out.push(chunk({}, answer.calls.length ? 'tool_calls' : 'stop'));
  if (usage) out.push({ id, object: 'chat.completion.chunk', created, model, choices: [], usage: { prompt_tokens: inputTokens, completion_tokens: output || 1, total_tokens: inputTokens + (output || 1) } });
  return out;
}

/** The non-streaming `chat.completion` of an answer. */
export function completion(answer, { model, seed, inputTokens, created }) {
  const output = tokens(`${answer.thinking ?? ''}${answer.text ?? ''}${JSON.stringify(answer.calls)}`);
  const msg = { role: 'assistant', content: answer.text || null };
  if (answer.thinking) msg.reasoning_content = answer.thinking;
  if (answer.calls.length) msg.tool_calls = answer.calls.map((c) => ({ id: c.id, type: 'function', function: { name: c.name, arguments: JSON.stringify(c.input) } }));
  return {
    id: idFor('chatcmpl-', seed, 29),
    object: 'chat.completion',
    created,
    model,
    choices: [{ index: 0, message: msg, finish_reason: answer.calls.length ? 'tool_calls' : 'stop' }],
    usage: { prompt_tokens: inputTokens, completion_tokens: output, total_tokens: inputTokens + output },
  };
}

/** The API's error body. */
export const errorBody = (type, message, code = null) => ({ error: { message, type, param: null, code } });

/** `data: <json>` frames, and the closing `[DONE]`. */
const frame = (data) => `data: ${JSON.stringify(data)}\n\n`;

/** The HTTP response for an engine answer (see wire/anthropic.mjs for the shape). */
export function answer(reply, conversation, { seed, created = 1_780_000_000 }) {
  const opts = { model: conversation.model, seed, inputTokens: conversation.size, created, usage: conversation.usage };
  if (reply.kind === 'fail' && reply.mode === 'http') {
    const headers = { 'content-type': 'application/json', 'x-should-retry': String(Boolean(reply.retry)) };
    return { status: reply.status, headers, pieces: [JSON.stringify(errorBody(reply.errorType, reply.message, String(reply.status)))] };
  }
  const sseHeaders = { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache' };
  if (reply.kind === 'fail') {
    const first = encodeTurn({ text: '', calls: [] }, opts)[0];
    return { status: 200, headers: sseHeaders, pieces: [frame(first), frame(errorBody(reply.errorType, reply.message))] };
  }
  if (!conversation.stream) return { status: 200, headers: { 'content-type': 'application/json' }, pieces: [JSON.stringify(completion(reply, opts))] };
  return { status: 200, headers: sseHeaders, pieces: [...encodeTurn(reply, opts).map(frame), 'data: [DONE]\n\n'] };
}
