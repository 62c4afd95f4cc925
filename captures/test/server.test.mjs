import assert from 'node:assert/strict';
import http from 'node:http';
import { after, before, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { dialect } from '../lib/clis/claude-code.mjs';
import { agent, fail, report, say, scenario, shell, spawn, turn } from '../lib/dsl.mjs';
import { Engine } from '../lib/engine.mjs';
import { routeOf, startServer } from '../lib/server.mjs';

const story = scenario({
  name: 'server-test',
  title: 'Server test',
  story: 'A main agent launches a slow agent and a failing one.',
  prompt: 'Main prompt of the server test.',
  main: [turn(say('Go.'), spawn('slow'), spawn('broken')), report('Done.')],
  agents: {
    slow: agent({ type: 'Explore', description: 'Slow', prompt: 'Prompt of the slow agent.', steps: [turn(shell('ls'), { after: 2000 }), report('ok')] }),
    broken: agent({ type: 'Plan', description: 'Broken', prompt: 'Prompt of the broken agent.', steps: [fail.http(500, { after: 0 })] }),
  },
});

let server;
before(async () => {
  server = await startServer({ engine: new Engine(story, dialect, { cwd: '/w' }) });
});
after(() => server.close());

const messages = (text) => ({ model: 'claude-opus-5-5', max_tokens: 100, stream: true, tools: [{ name: 'Agent' }], messages: [{ role: 'user', content: text }] });
const post = (path, body, signal) => fetch(`${server.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-api-key': 'secret' }, body: JSON.stringify(body), signal });

/** The events of an SSE body. */
const events = (text) => text.trim().split('\n\n').map((frame) => {
  const [event, data] = frame.split('\n');
  return { event: event.slice('event: '.length), data: JSON.parse(data.slice('data: '.length)) };
});

test('routes: each API\'s paths map to it', () => {
  assert.deepEqual(routeOf('POST', '/v1/messages'), { api: 'anthropic', op: 'generate' });
  assert.deepEqual(routeOf('POST', '/v1/messages/count_tokens'), { api: 'anthropic', op: 'count' });
  assert.deepEqual(routeOf('POST', '/v1/chat/completions'), { api: 'openai-chat', op: 'generate' });
  assert.deepEqual(routeOf('POST', '/v1/responses'), { api: 'openai-responses', op: 'generate' });
  assert.deepEqual(routeOf('POST', '/v1beta/models/gemini-2.5-pro:streamGenerateContent'), { api: 'gemini', op: 'generate', model: 'gemini-2.5-pro', stream: true });
  assert.equal(routeOf('GET', '/v1/messages'), null);
});

test('a streaming Messages request gets the main agent\'s first step as SSE, and is logged with its agent and turn', async () => {
  const res = await post('/v1/messages?beta=true', messages('Main prompt of the server test.'));
  assert.equal(res.status, 200);
  assert.match(res.headers.get('content-type'), /^text\/event-stream/);
  const evs = events(await res.text());
  assert.equal(evs[0].event, 'message_start');
  const tools = evs.filter((e) => e.data.content_block?.type === 'tool_use').map((e) => e.data.content_block.name);
  assert.deepEqual(tools, ['Agent', 'Agent']);
  const entry = server.log.at(-1);
  assert.equal(entry.agent, 'main');
  assert.equal(entry.turn, 0);
  assert.deepEqual(entry.launches, ['slow', 'broken']);
  assert.ok(entry.sent >= entry.t);
  assert.equal(entry.headers['x-api-key'], undefined, 'no key in the log');
});

test('a scripted HTTP failure reaches the client as that status, not retried', async () => {
  const res = await post('/v1/messages', messages('Prompt of the broken agent.'));
  assert.equal(res.status, 500);
  assert.equal(res.headers.get('x-should-retry'), 'false');
  assert.equal((await res.json()).error.type, 'api_error');
});

test('a client that hangs up during a step\'s delay is logged as aborted', async () => {
  const controller = new AbortController();
  const pending = post('/v1/messages', messages('Prompt of the slow agent.'), controller.signal).catch(() => null);
  await sleep(200);
  controller.abort();
  await pending;
  for (let i = 0; i < 50 && !server.log.some((e) => e.agent === 'slow'); i++) await sleep(20);
  assert.equal(server.log.find((e) => e.agent === 'slow').aborted, true);
});

test('count_tokens and the model list answer in the API\'s shapes', async () => {
  const count = await (await post('/v1/messages/count_tokens', messages('hello'))).json();
  assert.ok(count.input_tokens > 0);
  const models = await (await fetch(`${server.url}/v1/models`)).json();
  assert.ok(models.data.some((m) => m.id === 'claude-opus-5-5' && m.type === 'model' && m.object === 'model'));
});

test('an unknown path is a 404 and is logged as an unknown route', async () => {
  const res = await fetch(`${server.url}/api/oauth/profile`);
  assert.equal(res.status, 404);
  assert.equal(server.log.at(-1).unknown, true);
});

test('a CONNECT (a CLI going through the proxy to the internet) is refused and logged as an egress attempt', async () => {
  const status = await new Promise((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port: server.port, method: 'CONNECT', path: 'statsig.anthropic.com:443' });
    req.on('connect', (res, socket) => {
      socket.destroy();
      resolve(res.statusCode);
    });
    req.on('error', reject);
    req.end();
  });
  assert.equal(status, 403);
  assert.deepEqual(server.log.filter((e) => e.egress).map((e) => e.path), ['statsig.anthropic.com:443']);
});

test('a plain request through the proxy (an absolute URL) is refused and logged as an egress attempt', async () => {
  const status = await new Promise((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port: server.port, method: 'GET', path: 'http://example.com/telemetry' }, (res) => {
      res.resume();
      resolve(res.statusCode);
    });
    req.on('error', reject);
    req.end();
  });
  assert.equal(status, 403);
  assert.equal(server.log.at(-1).path, 'http://example.com/telemetry');
  assert.equal(server.log.at(-1).egress, true);
});

test('a failed tool result since the last reply is logged as a tool error, even with a system turn after it', async () => {
  const body = {
    ...messages('Main prompt of the server test.'),
    messages: [
      { role: 'user', content: 'Main prompt of the server test.' },
      { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_x', name: 'Read', input: {} }] },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_x', content: 'File does not exist.', is_error: true }] },
      { role: 'system', content: 'A reminder.' },
    ],
  };
  await (await post('/v1/messages', body)).text();
  assert.deepEqual(server.log.at(-1).toolErrors, ['toolu_x']);
});

test('with otlp, telemetry posts are answered {} and kept with their arrival time, and a server without it does not take them', async () => {
  const receiving = await startServer({ engine: new Engine(story, dialect, { cwd: '/w' }), otlp: true });
  try {
    const body = JSON.stringify({ resourceSpans: [] });
    const res = await fetch(`${receiving.url}/v1/traces`, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
    assert.equal(res.status, 200);
    assert.deepEqual(await res.json(), {});
    assert.equal(receiving.telemetry.length, 1);
    const [kept] = receiving.telemetry;
    assert.equal(kept.signal, 'traces');
    assert.equal(kept.body.toString(), body);
    assert.ok(kept.t >= 0);
    assert.equal(receiving.log.length, 0, 'telemetry is not a model request');
  } finally {
    await receiving.close();
  }
  const res = await fetch(`${server.url}/v1/traces`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
  assert.equal(res.status, 404);
});
