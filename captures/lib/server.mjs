// The scripted model server: plain node:http on 127.0.0.1. Every request is
// logged; model requests go through the engine, which picks the scenario's
// next step for the asking agent; each API module writes the answer in its
// own wire format. A CONNECT (a CLI trying to reach the internet through the
// proxy the harness sets) is refused and logged as an egress attempt.
import http from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import * as anthropic from './wire/anthropic.mjs';
import * as gemini from './wire/gemini.mjs';
import * as openaiChat from './wire/openai-chat.mjs';
import * as responses from './wire/openai-responses.mjs';

/** Model ids listed by `GET /v1/models` (both the Anthropic and the OpenAI shape). */
const MODELS = ['claude-opus-5-5', 'claude-sonnet-4-6', 'claude-haiku-4-5', 'qwen3-coder-plus', 'gpt-5-codex', 'gemini-2.5-pro'];

function listModels() {
  const created = Date.parse('2026-01-01T00:00:00Z') / 1000;
  const body = anthropic.models(MODELS);
  body.object = 'list';
  body.data = body.data.map((m) => ({ ...m, object: 'model', created, owned_by: 'scripted' }));
  return body;
}

const json = (res, status, body, headers = {}) => {
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify(body));
};

/** Headers worth keeping in the log: no keys, no auth. */
function loggedHeaders(headers) {
  const keep = {};
  for (const [k, v] of Object.entries(headers)) {
    if (/key|auth|cookie|token/i.test(k)) continue;
    if (k === 'user-agent' || k.startsWith('anthropic-') || k.startsWith('x-') || k === 'openai-beta') keep[k] = v;
  }
  return keep;
}

/** The API a model request speaks, from its method and path; null if none. */
export function routeOf(method, path) {
  if (method !== 'POST') return null;
  if (/\/messages\/count_tokens$/.test(path)) return { api: 'anthropic', op: 'count' };
  if (/\/v1\/messages$/.test(path)) return { api: 'anthropic', op: 'generate' };
  if (/\/chat\/completions$/.test(path)) return { api: 'openai-chat', op: 'generate' };
  if (/\/responses$/.test(path)) return { api: 'openai-responses', op: 'generate' };
  const g = path.match(/\/models\/([^/:]+):(streamGenerateContent|generateContent|countTokens)$/);
  if (g) return { api: 'gemini', op: g[2] === 'countTokens' ? 'count' : 'generate', model: g[1], stream: g[2] === 'streamGenerateContent' };
  return null;
}

/** The ids of the failed tool results since the conversation's last reply (CLIs may add a system turn after them). */
function toolErrors(conversation) {
  const since = [];
  for (let i = conversation.messages.length - 1; i >= 0 && conversation.messages[i].role !== 'assistant'; i--) since.push(conversation.messages[i]);
  return since.flatMap((m) => m.parts.filter((p) => p.type === 'result' && p.isError).map((p) => p.id));
}

const WIRES = { anthropic, 'openai-chat': openaiChat, gemini, 'openai-responses': responses };

/**
 * Starts the server on 127.0.0.1 (a free port unless `port` is given).
 * `engine` answers model requests; `onRequest(entry)` sees every log entry;
 * `keepBodies(entry, body)` may store request bodies for debugging.
 * With `otlp`, it is also an OpenTelemetry receiver: every POST to
 * `/v1/traces|logs|metrics` is answered `{}` and kept, with its arrival time,
 * in `otlp` (the returned `telemetry`).
 * Resolves to `{ url, port, log, telemetry, close() }`.
 */
export async function startServer({ engine, port = 0, onRequest = () => {}, keepBodies = null, otlp = false }) {
  const log = [];
  const telemetry = [];
  let count = 0;
  const record = (entry) => {
    log.push(entry);
    onRequest(entry);
  };
  const server = http.createServer(async (req, res) => {
    const chunks = [];
    for await (const c of req) chunks.push(c);
    const url = new URL(req.url, 'http://127.0.0.1');
    const signal = otlp && req.method === 'POST' && url.pathname.match(/^\/v1\/(traces|logs|metrics)$/)?.[1];
    if (signal) {
      telemetry.push({ t: engine.clock() - engine.start, signal, contentType: req.headers['content-type'] ?? '', encoding: req.headers['content-encoding'] ?? '', body: Buffer.concat(chunks) });
      return json(res, 200, {});
    }
    const raw = Buffer.concat(chunks).toString('utf8');
    const entry = { n: ++count, t: engine.clock() - engine.start, method: req.method, path: url.pathname, headers: loggedHeaders(req.headers) };
    let body = null;
    try {
      body = raw ? JSON.parse(raw) : null;
    } catch {
      body = raw;
    }
    try {
      await handle(req, res, url, body, entry);
    } catch (err) {
      entry.error = String(err?.stack ?? err);
      if (!res.headersSent) json(res, 500, anthropic.errorBody('api_error', 'scripted server error'));
      else res.end();
    }
    keepBodies?.(entry, body);
    record(entry);
  });

  async function handle(req, res, url, body, entry) {
    if (/^https?:\/\//.test(req.url)) {
      Object.assign(entry, { egress: true, path: req.url, status: 403 });
      return json(res, 403, anthropic.errorBody('permission_error', 'the scripted server reaches nothing beyond 127.0.0.1'));
    }
    if (req.method === 'GET' && /\/models$/.test(url.pathname)) {
      entry.status = 200;
      return json(res, 200, listModels());
    }
    const route = routeOf(req.method, url.pathname);
    if (!route) {
      entry.status = 404;
      entry.unknown = true;
      return json(res, 404, anthropic.errorBody('not_found_error', `no route for ${req.method} ${url.pathname}`));
    }
    const wire = WIRES[route.api];
    entry.api = route.api;
    const conversation = wire.parseRequest(body, route);
    if (route.op === 'count') {
      entry.status = 200;
      return json(res, 200, wire.countTokens(conversation));
    }
    entry.tools = conversation.tools;
    const { agent, turn, answer, replay } = engine.respond(conversation);
    Object.assign(entry, { agent, turn, kind: answer.kind, step: answer.step ?? null, after: answer.after });
    if (replay) entry.replay = true;
    if (answer.calls?.length) entry.calls = answer.calls.map((c) => c.name);
    for (const k of ['waiting', 'loading', 'launches', 'final']) if (answer[k]) entry[k] = answer[k];
    const errors = toolErrors(conversation);
    if (errors.length) entry.toolErrors = errors;
    const hangUp = new AbortController();
    const onClose = () => hangUp.abort();
    res.on('close', onClose);
    const aborted = await sleep(answer.after ?? 0, false, { signal: hangUp.signal }).catch(() => true);
    res.off('close', onClose);
    if (aborted) {
      entry.aborted = true;
      entry.sent = engine.clock() - engine.start;
      return;
    }
    const seed = agent ? `${engine.scenario.name}|${agent}|${turn}` : `${engine.scenario.name}|side|${entry.n}`;
    const out = wire.answer(answer, conversation, { seed, route });
    entry.status = out.status;
    res.writeHead(out.status, out.headers);
    for (const piece of out.pieces) {
      if (res.destroyed) break;
      res.write(piece);
    }
    res.end();
    entry.sent = engine.clock() - engine.start;
    engine.delivered(agent, answer);
  }

  await new Promise((resolve) => server.listen(port, '127.0.0.1', resolve));
  server.on('connect', (req, socket) => {
    record({ n: ++count, t: engine.clock() - engine.start, method: 'CONNECT', path: req.url, egress: true, status: 403 });
    socket.on('error', () => {}); // a client that resets the refused tunnel must not bring the server down
    socket.end('HTTP/1.1 403 Forbidden\r\n\r\n');
  });
  const actual = server.address().port;
  return {
    url: `http://127.0.0.1:${actual}`,
    port: actual,
    log,
    telemetry,
    close: () => new Promise((resolve) => {
      server.closeAllConnections();
      server.close(resolve);
    }),
  };
}
