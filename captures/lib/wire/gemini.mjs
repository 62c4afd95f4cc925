// The Gemini API (`POST /v1beta/models/<model>:streamGenerateContent?alt=sse`,
// `:generateContent`, `:countTokens`), as Gemini CLI speaks it: a request
// read into the engine's conversation, and an answer as GenerateContentResponse
// chunks (thought parts, text, whole function calls, usageMetadata).
import { idFor } from '../ids.mjs';
import { tokens } from '../engine.mjs';
import { chunks } from './anthropic.mjs';

const resultText = (response) => {
  if (response == null) return '';
  if (typeof response === 'string') return response;
  const value = response.output ?? response.error ?? response.content ?? response;
  return typeof value === 'string' ? value : JSON.stringify(value);
};

function part(p) {
  if (p.functionCall) return { type: 'call', id: p.functionCall.id ?? null, name: p.functionCall.name, input: p.functionCall.args ?? {} };
  if (p.functionResponse) {
    const r = p.functionResponse.response;
    return { type: 'result', id: p.functionResponse.id ?? null, name: p.functionResponse.name, text: resultText(r), isError: r?.error !== undefined };
  }
  if (p.thought) return { type: 'thinking', text: p.text ?? '' };
  if (typeof p.text === 'string') return { type: 'text', text: p.text };
  return { type: Object.keys(p)[0] ?? 'empty' };
}

/**
 * Gives calls without an id (older histories) one from their position, and a
 * result without an id the id of the call it answers (same name, in order).
 */
function pairIds(messages) {
  const open = [];
  messages.forEach((m, i) => {
    m.parts.forEach((p, j) => {
      if (p.type === 'call') {
        p.id ??= `call@${i}.${j}`;
        open.push(p);
      }
      if (p.type === 'result' && p.id === null) {
        const k = open.findIndex((c) => c.name === p.name);
        p.id = k >= 0 ? open.splice(k, 1)[0].id : `result@${i}.${j}`;
      }
    });
  });
  return messages;
}

/** A generateContent request (`route.model` names the model) as a conversation. */
export function parseRequest(body, route = {}) {
  const contents = body.contents ?? [];
  return {
    model: route.model ?? body.model,
    system: (body.systemInstruction?.parts ?? []).map((p) => p.text ?? '').join('\n'),
    tools: (body.tools ?? []).flatMap((t) => (t.functionDeclarations ?? []).map((f) => f.name)),
    schemas: Object.fromEntries((body.tools ?? []).flatMap((t) => (t.functionDeclarations ?? []).map((f) => [f.name, f.parametersJsonSchema ?? f.parameters ?? {}]))),
    messages: pairIds(contents.map((c) => ({ role: c.role === 'model' ? 'assistant' : 'user', parts: (c.parts ?? []).map(part) }))),
    stream: route.stream !== false,
    size: tokens(JSON.stringify(contents) + JSON.stringify(body.systemInstruction ?? '')),
  };
}

const usage = (inputTokens, output) => ({ promptTokenCount: inputTokens, candidatesTokenCount: output, totalTokenCount: inputTokens + output });

/**
 * The chunks of one answer: thought parts, then text in pieces, then the
 * function calls (whole, with the engine's ids), the last chunk carrying
 * finishReason STOP and the usage.
 */
export function encodeTurn(answer, { model, seed, inputTokens }) {
  const responseId = idFor('', seed, 22);
  const chunk = (parts, extra = {}) => ({ candidates: [{ content: { role: 'model', parts }, index: 0, ...extra }], modelVersion: model, responseId });
  const out = [];
  let output = 0;
  if (answer.thinking) {
    out.push(chunk([{ text: answer.thinking, thought: true }]));
    output += tokens(answer.thinking);
  }
  for (const piece of answer.text ? chunks(answer.text) : []) out.push(chunk([{ text: piece }]));
  output += answer.text ? tokens(answer.text) : 0;
  const calls = answer.calls.map((c) => ({ functionCall: { id: c.id, name: c.name, args: c.input } }));
  output += tokens(JSON.stringify(calls));
  const last = chunk(calls.length ? calls : out.length ? [] : [{ text: '' }], { finishReason: 'STOP' });
  out.push({ ...last, usageMetadata: usage(inputTokens, output) });
  return out;
}

/** The API's error body (google.rpc.Status). */
export const errorBody = (status, message) => ({
  error: { code: status, message, status: status === 429 ? 'RESOURCE_EXHAUSTED' : status === 503 || status === 529 ? 'UNAVAILABLE' : 'INTERNAL' },
});

/** `:countTokens`. */
export const countTokens = (conversation) => ({ totalTokens: conversation.size });

/** The HTTP response for an engine answer (see wire/anthropic.mjs for the shape). */
export function answer(reply, conversation, { seed }) {
  const opts = { model: conversation.model, seed, inputTokens: conversation.size };
  if (reply.kind === 'fail' && reply.mode === 'http') {
    return { status: reply.status, headers: { 'content-type': 'application/json' }, pieces: [JSON.stringify(errorBody(reply.status, reply.message))] };
  }
  const sseHeaders = { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache' };
  const frame = (data) => `data: ${JSON.stringify(data)}\r\n\r\n`;
  if (reply.kind === 'fail') return { status: 200, headers: sseHeaders, pieces: [frame(encodeTurn({ text: '', calls: [] }, opts)[0]), frame(errorBody(503, reply.message))] };
  const events = encodeTurn(reply, opts);
  if (!conversation.stream) {
    const parts = events.flatMap((e) => e.candidates[0].content.parts);
    const whole = { ...events.at(-1), candidates: [{ ...events.at(-1).candidates[0], content: { role: 'model', parts } }] };
    return { status: 200, headers: { 'content-type': 'application/json' }, pieces: [JSON.stringify(whole)] };
  }
  return { status: 200, headers: sseHeaders, pieces: events.map(frame) };
}
