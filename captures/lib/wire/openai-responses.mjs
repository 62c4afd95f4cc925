// The OpenAI Responses API (`POST /v1/responses`), as Codex speaks it: a
// request's `input` items read into the engine's conversation, and an answer
// as the API's SSE events (response.created, output items for reasoning,
// message text and function calls with streamed arguments, response.completed
// with usage).
import { idFor } from '../ids.mjs';
import { tokens } from '../engine.mjs';
import { chunks } from './anthropic.mjs';

const contentText = (content) =>
  typeof content === 'string' ? content : (content ?? []).map((c) => c.text ?? '').filter(Boolean).join('\n');

const parseArgs = (raw) => {
  try {
    return typeof raw === 'string' ? JSON.parse(raw || '{}') : raw ?? {};
  } catch {
    return { raw };
  }
};

const outputText = (output) => (typeof output === 'string' ? output : output?.content ?? contentText(output));

/** One input item as a message part, with the role of the message it belongs to. */
function item(it) {
  switch (it.type ?? 'message') {
    case 'message':
      return { role: it.role === 'assistant' ? 'assistant' : it.role === 'user' ? 'user' : 'system', part: { type: 'text', text: contentText(it.content) } };
    case 'function_call':
      return { role: 'assistant', part: { type: 'call', id: it.call_id, name: it.name, input: parseArgs(it.arguments) } };
    case 'custom_tool_call':
      return { role: 'assistant', part: { type: 'call', id: it.call_id, name: it.name, input: { input: it.input } } };
    case 'function_call_output':
    case 'custom_tool_call_output':
      return { role: 'tool', part: { type: 'result', id: it.call_id, text: outputText(it.output), isError: false } };
    case 'reasoning':
      return { role: 'assistant', part: { type: 'thinking', text: (it.summary ?? []).map((s) => s.text).join('\n') } };
    default:
      return { role: 'system', part: { type: it.type } };
  }
}

/**
 * A Responses request as a conversation. Consecutive items of the same role
 * form one message, so an assistant reply (reasoning, text, calls) counts once.
 */
export function parseRequest(body) {
  const input = typeof body.input === 'string' ? [{ type: 'message', role: 'user', content: body.input }] : body.input ?? [];
  const messages = [];
  for (const it of input) {
    const { role, part } = item(it);
    const last = messages.at(-1);
    if (last && last.role === role && role !== 'user') last.parts.push(part);
    else messages.push({ role, parts: [part] });
  }
  return {
    model: body.model,
    system: body.instructions ?? '',
    tools: (body.tools ?? []).flatMap((t) => (t.type === 'namespace' ? (t.tools ?? []).map((n) => n.name) : [t.name ?? t.type])),
    namespaces: Object.fromEntries((body.tools ?? []).filter((t) => t.type === 'namespace').flatMap((t) => (t.tools ?? []).map((n) => [n.name, t.name]))),
    messages,
    stream: body.stream === true,
    size: tokens(JSON.stringify(input) + (body.instructions ?? '')),
  };
}

/**
 * The events of one answer: response.created / in_progress, an output item
 * per reasoning summary, message and function call (text and arguments in
 * deltas), response.completed with every item and the usage. Each event has
 * its `sequence_number`.
 */
export function encodeTurn(answer, { model, seed, inputTokens, createdAt, namespaces = {} }) {
  const responseId = idFor('resp_', seed, 32);
  const events = [];
  const emit = (type, data) => events.push({ event: type, data: { type, ...data, sequence_number: events.length } });
  const response = (status, extra = {}) => ({ id: responseId, object: 'response', created_at: createdAt, status, model, output: [], ...extra });
  emit('response.created', { response: response('in_progress') });
  emit('response.in_progress', { response: response('in_progress') });
  const items = [];
  let output = 0;
  const addItem = (itemDone, stream) => {
    const output_index = items.length;
    emit('response.output_item.added', { output_index, item: stream.start });
    stream.body(output_index);
    emit('response.output_item.done', { output_index, item: itemDone });
    items.push(itemDone);
  };
  if (answer.thinking) {
    const id = idFor('rs_', `${seed}|r`, 32);
    const summary = [{ type: 'summary_text', text: answer.thinking }];
    addItem({ id, type: 'reasoning', summary }, {
      start: { id, type: 'reasoning', summary: [] },
      body: (output_index) => {
        emit('response.reasoning_summary_part.added', { item_id: id, output_index, summary_index: 0, part: { type: 'summary_text', text: '' } });
        for (const delta of chunks(answer.thinking)) emit('response.reasoning_summary_text.delta', { item_id: id, output_index, summary_index: 0, delta });
        emit('response.reasoning_summary_text.done', { item_id: id, output_index, summary_index: 0, text: answer.thinking });
        emit('response.reasoning_summary_part.done', { item_id: id, output_index, summary_index: 0, part: summary[0] });
      },
    });
    output += tokens(answer.thinking);
  }
  if (answer.text) {
    const id = idFor('msg_', `${seed}|m`, 32);
    const part = { type: 'output_text', text: answer.text, annotations: [] };
    addItem({ id, type: 'message', role: 'assistant', status: 'completed', content: [part] }, {
      start: { id, type: 'message', role: 'assistant', status: 'in_progress', content: [] },
      body: (output_index) => {
        emit('response.content_part.added', { item_id: id, output_index, content_index: 0, part: { type: 'output_text', text: '', annotations: [] } });
        for (const delta of chunks(answer.text)) emit('response.output_text.delta', { item_id: id, output_index, content_index: 0, delta });
        emit('response.output_text.done', { item_id: id, output_index, content_index: 0, text: answer.text });
        emit('response.content_part.done', { item_id: id, output_index, content_index: 0, part });
      },
    });
    output += tokens(answer.text);
  }
  answer.calls.forEach((call, i) => {
    const id = idFor('fc_', `${seed}|c${i}`, 32);
    const args = JSON.stringify(call.input);
    const namespace = namespaces[call.name] ? { namespace: namespaces[call.name] } : {};
    addItem({ id, type: 'function_call', status: 'completed', call_id: call.id, name: call.name, ...namespace, arguments: args }, {
      start: { id, type: 'function_call', status: 'in_progress', call_id: call.id, name: call.name, ...namespace, arguments: '' },
      body: (output_index) => {
        for (const delta of chunks(args, 64)) emit('response.function_call_arguments.delta', { item_id: id, output_index, delta });
        emit('response.function_call_arguments.done', { item_id: id, output_index, arguments: args });
      },
    });
    output += tokens(args);
  });
  const usage = { input_tokens: inputTokens, input_tokens_details: { cached_tokens: 0 }, output_tokens: output || 1, output_tokens_details: { reasoning_tokens: answer.thinking ? tokens(answer.thinking) : 0 }, total_tokens: inputTokens + (output || 1) };
  emit('response.completed', { response: response('completed', { output: items, usage }) });
  return events;
}

/** The API's error body. */
export const errorBody = (type, message, code = null) => ({ error: { message, type, param: null, code } });

const frame = ({ event, data }) => `event: ${event}\ndata: ${JSON.stringify(data)}\n\n`;

/** The HTTP response for an engine answer (see wire/anthropic.mjs for the shape). */
export function answer(reply, conversation, { seed, createdAt = 1_780_000_000 }) {
  const opts = { model: conversation.model, seed, inputTokens: conversation.size, createdAt, namespaces: conversation.namespaces };
  if (reply.kind === 'fail' && reply.mode === 'http') {
    return { status: reply.status, headers: { 'content-type': 'application/json' }, pieces: [JSON.stringify(errorBody(reply.errorType, reply.message, String(reply.status)))] };
  }
  const sseHeaders = { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache' };
  if (reply.kind === 'fail') {
    const [created] = encodeTurn({ text: '', calls: [] }, opts);
    const failed = { event: 'response.failed', data: { type: 'response.failed', sequence_number: 1, response: { ...created.data.response, status: 'failed', error: { code: reply.errorType, message: reply.message } } } };
    return { status: 200, headers: sseHeaders, pieces: [frame(created), frame(failed)] };
  }
  const events = encodeTurn(reply, opts);
  if (!conversation.stream) return { status: 200, headers: { 'content-type': 'application/json' }, pieces: [JSON.stringify(events.at(-1).data.response)] };
  return { status: 200, headers: sseHeaders, pieces: events.map(frame) };
}
