// The Anthropic Messages API (POST /v1/messages): a request body read into the
// engine's conversation, and an answer written as the API's SSE stream.
import { idFor } from '../ids.mjs';
import { tokens } from '../engine.mjs';

const blocks = (content) => (typeof content === 'string' ? [{ type: 'text', text: content }] : content ?? []);

/** Text of a tool_result's content (a string or text blocks). */
const resultText = (content) =>
  typeof content === 'string' ? content : blocks(content).filter((b) => b.type === 'text').map((b) => b.text).join('\n');

function part(block) {
  switch (block.type) {
    case 'text':
      return { type: 'text', text: block.text };
    case 'thinking':
      return { type: 'thinking', text: block.thinking ?? '' };
    case 'tool_use':
      return { type: 'call', id: block.id, name: block.name, input: block.input };
    case 'tool_result':
      return { type: 'result', id: block.tool_use_id, text: resultText(block.content), isError: Boolean(block.is_error) };
    default:
      return { type: block.type };
  }
}

const systemText = (system) => (typeof system === 'string' ? system : (system ?? []).map((b) => b.text ?? '').join('\n'));

/** A Messages request body as a conversation: model, system, tools, messages. */
export function parseRequest(body) {
  return {
    model: body.model,
    system: systemText(body.system),
    tools: (body.tools ?? []).map((t) => t.name),
    messages: (body.messages ?? []).map((m) => ({ role: m.role, parts: blocks(m.content).map(part) })),
    stream: body.stream === true,
    hideThinking: body.thinking?.display === 'omitted',
    size: tokens(JSON.stringify(body.messages ?? []) + systemText(body.system)),
  };
}

const event = (type, data) => ({ event: type, data: { type, ...data } });

/** Splits text into a few deltas, as a streaming model would send them. */
export function chunks(text, size = 48) {
  const out = [];
  for (let i = 0; i < text.length; i += size) out.push(text.slice(i, i + size));
  return out.length ? out : [''];
}

/**
 * The SSE events of one answer (`{ text, thinking, calls }`) to a request for
 * `model`: message_start, one content block per thinking / text / tool_use
 * (tool input streamed as input_json_delta), message_delta with stop reason and
 * usage, message_stop. `seed` makes the message id deterministic. With
 * `hideThinking` (the request asked for `thinking.display: "omitted"`) the
 * thinking block carries only its signature, as the API sends it then.
 */
export function encodeTurn(answer, { model, seed, inputTokens, hideThinking = false }) {
  const events = [];
  const usage = { input_tokens: inputTokens, cache_creation_input_tokens: 0, cache_read_input_tokens: 0, output_tokens: 1 };
  events.push(event('message_start', {
    message: { id: idFor('msg_01', seed), type: 'message', role: 'assistant', model, content: [], stop_reason: null, stop_sequence: null, usage },
  }));
  let index = 0;
  let output = 0;
  if (answer.thinking) {
    events.push(event('content_block_start', { index, content_block: { type: 'thinking', thinking: '', signature: '' } }));
    if (!hideThinking) for (const piece of chunks(answer.thinking)) events.push(event('content_block_delta', { index, delta: { type: 'thinking_delta', thinking: piece } }));
    events.push(event('content_block_delta', { index, delta: { type: 'signature_delta', signature: idFor('sig', seed, 64) } }));
    events.push(event('content_block_stop', { index }));
    output += tokens(answer.thinking);
    index++;
  }
  if (answer.text) {
    events.push(event('content_block_start', { index, content_block: { type: 'text', text: '' } }));
    for (const piece of chunks(answer.text)) events.push(event('content_block_delta', { index, delta: { type: 'text_delta', text: piece } }));
    events.push(event('content_block_stop', { index }));
    output += tokens(answer.text);
    index++;
  }
  for (const call of answer.calls) {
    events.push(event('content_block_start', { index, content_block: { type: 'tool_use', id: call.id, name: call.name, input: {} } }));
    const json = JSON.stringify(call.input);
    for (const piece of chunks(json, 64)) events.push(event('content_block_delta', { index, delta: { type: 'input_json_delta', partial_json: piece } }));
    events.push(event('content_block_stop', { index }));
    output += tokens(json);
    index++;
  }
  if (index === 0) {
    events.push(event('content_block_start', { index, content_block: { type: 'text', text: '' } }));
    events.push(event('content_block_stop', { index }));
  }
  const stop = answer.calls.length ? 'tool_use' : 'end_turn';
  events.push(event('message_delta', { delta: { stop_reason: stop, stop_sequence: null }, usage: { output_tokens: output || 1 } }));
  events.push(event('message_stop', {}));
  return events;
}

/** The API's error body. */
export const errorBody = (type, message) => ({ type: 'error', error: { type, message } });

/**
 * The events of a stream that fails: message_start, then an `error` event (the
 * API does this when it is overloaded mid-stream).
 */
function encodeStreamError(answer, { model, seed, inputTokens }) {
  const usage = { input_tokens: inputTokens, cache_creation_input_tokens: 0, cache_read_input_tokens: 0, output_tokens: 1 };
  return [
    event('message_start', { message: { id: idFor('msg_01', seed), type: 'message', role: 'assistant', model, content: [], stop_reason: null, stop_sequence: null, usage } }),
    { event: 'error', data: errorBody(answer.errorType, answer.message) },
  ];
}

/** One SSE frame. */
export const sse = ({ event: name, data }) => `event: ${name}\ndata: ${JSON.stringify(data)}\n\n`;

/** `POST /v1/messages/count_tokens`: a count from the body's size. */
export const countTokens = (conversation) => ({ input_tokens: conversation.size });

/** `GET /v1/models`: the models the CLIs ask for, as the API lists them. */
export function models(ids) {
  const data = ids.map((id) => ({ type: 'model', id, display_name: id, created_at: '2026-01-01T00:00:00Z' }));
  return { data, has_more: false, first_id: data[0]?.id ?? null, last_id: data.at(-1)?.id ?? null };
}

/** The message a non-streaming request gets: the streamed events folded into one object. */
export function foldMessage(events) {
  const message = structuredClone(events[0].data.message);
  for (const { data } of events.slice(1)) {
    if (data.type === 'content_block_start') message.content[data.index] = { ...data.content_block };
    if (data.type === 'content_block_delta') {
      const block = message.content[data.index];
      const d = data.delta;
      if (d.type === 'text_delta') block.text += d.text;
      if (d.type === 'thinking_delta') block.thinking += d.thinking;
      if (d.type === 'signature_delta') block.signature = d.signature;
      if (d.type === 'input_json_delta') block.partial = (block.partial ?? '') + d.partial_json;
    }
    if (data.type === 'content_block_stop') {
      const block = message.content[data.index];
      if (block.type === 'tool_use') {
        block.input = block.partial ? JSON.parse(block.partial) : {};
        delete block.partial;
      }
    }
    if (data.type === 'message_delta') {
      Object.assign(message, data.delta);
      message.usage = { ...message.usage, ...data.usage };
    }
  }
  return message;
}

const SSE_HEADERS = { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache' };

/**
 * The HTTP response for an engine answer: `{ status, headers, pieces }`. A
 * failure is an error status (with `x-should-retry` telling the SDK whether to
 * retry) or a stream ending in an `error` event.
 */
export function answer(reply, conversation, { seed }) {
  const opts = { model: conversation.model, seed, inputTokens: conversation.size, hideThinking: conversation.hideThinking };
  if (reply.kind === 'fail' && reply.mode === 'http') {
    const headers = { 'content-type': 'application/json', 'x-should-retry': String(Boolean(reply.retry)), 'request-id': idFor('req_', seed) };
    return { status: reply.status, headers, pieces: [JSON.stringify(errorBody(reply.errorType, reply.message))] };
  }
  if (reply.kind === 'fail') return { status: 200, headers: SSE_HEADERS, pieces: encodeStreamError(reply, opts).map(sse) };
  const events = encodeTurn(reply, opts);
  if (!conversation.stream) return { status: 200, headers: { 'content-type': 'application/json' }, pieces: [JSON.stringify(foldMessage(events))] };
  return { status: 200, headers: SSE_HEADERS, pieces: events.map(sse) };
}
