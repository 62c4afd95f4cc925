// Who may read (docs/behaviour.md §7, docs/operating.md "Who may read"), in a real browser. A
// hostile page of another site (evil.test, resolved to 127.0.0.1 by
// Chromium's --host-resolver-rules, served by a tiny Node server) tries every
// way a page has to read a taskview on loopback — fetch with and without
// credentials, a preflighted fetch, an opaque one, a WebSocket, a frame, and a
// DNS-rebinding visit (its own name on taskview's port) — and reads nothing.
// The same page named with --allow-origin, and a loopback page of another
// port (where kandev's web client runs), read it. Beyond loopback, the
// token in the printed URL opens the board and becomes an HttpOnly cookie.
import http from 'node:http';
import { test, expect } from '../lib/fixtures.mjs';
import { LAUNCH_OPTIONS } from '../lib/browser.mjs';
import { AppPage } from '../pages/app.mjs';
import { BoardPage } from '../pages/board.mjs';

test.use({
  launchOptions: {
    ...LAUNCH_OPTIONS,
    args: [...LAUNCH_OPTIONS.args, '--host-resolver-rules=MAP evil.test 127.0.0.1, MAP kandev.test 127.0.0.1'],
  },
});

const TOKEN = 'e2e-token-7Gq2xZ';

// The reader's page: `window.attempts(tv)` tries each way to read taskview at
// `tv` (its URL with a trailing slash) and reports what it got.
const READER_PAGE = `<!doctype html><link rel="icon" href="data:,"><title>reader</title><body><script>
  const read = async (url, init) => {
    try {
      const r = await fetch(url, init);
      return { status: r.status, type: r.type, body: await r.text() };
    } catch (e) {
      return { error: e.name };
    }
  };
  const socket = (url) => new Promise((resolve) => {
    const events = [];
    const ws = new WebSocket(url);
    ws.onopen = () => {
      events.push('open');
      ws.send(JSON.stringify({ id: 'r1', type: 'request', action: 'user.subscribe', payload: {} }));
    };
    ws.onmessage = (e) => {
      const reply = e.data.split('\\n').map((line) => JSON.parse(line)).find((m) => m.id === 'r1');
      if (reply) { events.push('message ' + reply.type); ws.close(); }
    };
    ws.onerror = () => events.push('error');
    ws.onclose = () => resolve(events);
  });
  window.attempts = async (tv) => {
    const api = tv + 'api/v1/workflows';
    return {
      plain: await read(api),
      credentials: await read(api, { credentials: 'include' }),
      preflighted: await read(api, { credentials: 'include', headers: { 'x-reader': '1' } }),
      opaque: await read(api, { mode: 'no-cors', credentials: 'include' }),
      socket: await socket(tv.replace(/^http/, 'ws') + 'ws'),
    };
  };
  window.frameIt = (tv) => new Promise((resolve) => {
    const frame = document.createElement('iframe');
    frame.src = tv;
    frame.onload = () => {
      let seen;
      try { seen = frame.contentDocument ? frame.contentDocument.body.innerText : 'no document'; } catch (e) { seen = e.name; }
      resolve(seen);
    };
    document.body.append(frame);
    setTimeout(() => resolve('no load event'), 10000);
  });
</script>`;

/** The readers' pages on a port of their own (served on 127.0.0.1). */
async function startReaders() {
  const server = http.createServer((req, res) => {
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    res.end(READER_PAGE);
  });
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address();
  return {
    evil: `http://evil.test:${port}`,
    kandev: `http://kandev.test:${port}`,
    loopback: `http://127.0.0.1:${port}`,
    close: () => server.close(),
  };
}

let readers;
test.beforeAll(async () => { readers = await startReaders(); });
test.afterAll(() => readers.close());

/** Console noise a refused read leaves on the reader's page. */
const REFUSED = /CORS|Failed to load resource|ERR_FAILED|WebSocket|frame-ancestors|Refused to frame/;

test('a page of another site reads nothing: fetch, credentials, preflight, opaque, WebSocket, frame', async ({ page, app, errors }) => {
  errors.allow(page, REFUSED);
  await page.goto(`${readers.evil}/`);
  const got = await page.evaluate((tv) => window.attempts(tv), app.url);
  expect(got.plain, 'no CORS grant').toEqual({ error: 'TypeError' });
  expect(got.credentials, 'not with cookies either').toEqual({ error: 'TypeError' });
  expect(got.preflighted, 'the preflight is refused').toEqual({ error: 'TypeError' });
  expect(got.opaque, 'an opaque answer holds nothing').toEqual({ status: 0, type: 'opaque', body: '' });
  expect(got.socket, 'no WebSocket').toEqual(['error']);

  expect(await page.evaluate((tv) => window.frameIt(tv), app.url), 'the frame is not readable').toBe('no document');
  await expect.poll(() => errors.of(page).some((e) => /frame-ancestors/.test(e)), { message: 'the CSP refused the frame' }).toBe(true);
  expect(page.frames().some((f) => f.url().startsWith(app.url)), 'no taskview document in the frame').toBe(false);
});

test('a hostile name resolved to 127.0.0.1 (DNS rebinding) gets a refusal, not the app or its data', async ({ page, app, errors }) => {
  errors.allow(page, /403/);
  const rebound = `http://evil.test:${app.port}/`;
  const response = await page.goto(rebound);
  expect(response.status()).toBe(403);
  expect(await page.locator('body').innerText()).toContain('is not a name of this server');
  // Same-origin for the page, so it may read the answers: refusals only.
  const got = await page.evaluate(() => Promise.all(
    ['/api/v1/workflows', '/api/v1/workflows/wf-demo/snapshot', '/task/task-demo-wave', '/ws'].map(async (path) => {
      const r = await fetch(path);
      return { path, status: r.status, data: /wf-demo|task-demo/.test(await r.text()) };
    })));
  for (const answer of got) expect(answer, answer.path).toEqual({ path: answer.path, status: 403, data: false });
});

test('a page named with --allow-origin, and a loopback page of another port, read the API and the WebSocket', async ({ page, openPage, serve, errors }) => {
  const tv = await serve(['--allow-origin', readers.kandev]);
  for (const [reader, origin] of [[page, readers.kandev], [await openPage(), readers.loopback]]) {
    await reader.goto(`${origin}/`);
    const got = await reader.evaluate((url) => window.attempts(url), tv.url);
    for (const kind of ['plain', 'credentials', 'preflighted']) {
      expect(got[kind].status, `${origin} ${kind}`).toBe(200);
      expect(JSON.parse(got[kind].body).workflows[0].id).toBe('wf-demo');
    }
    expect(got.socket, origin).toEqual(['open', 'message response']);
  }
  // Another site, not named, is still refused by the same server.
  const stranger = await openPage();
  errors.allow(stranger, REFUSED);
  await stranger.goto(`${readers.evil}/`);
  const got = await stranger.evaluate((url) => window.attempts(url), tv.url);
  expect(got.credentials).toEqual({ error: 'TypeError' });
  expect(got.socket).toEqual(['error']);
});

test('beyond loopback the printed URL opens the board, drops its token and leaves an HttpOnly strict cookie; without it: 401', async ({ page, openPage, serve, errors }) => {
  const tv = await serve(['--token', TOKEN], { host: '0.0.0.0' });
  expect(tv.token, 'the token is in the printed URL').toBe(TOKEN);
  expect(tv.output()).toContain(`listening on every interface, 0.0.0.0:${tv.port}`);

  const board = await BoardPage.open(page, tv, `?token=${TOKEN}`);
  await board.card('task-demo-wave').link.waitFor();
  expect(page.url(), 'the token left the address bar').toBe(tv.url);
  await board.waitConnected();
  const cookies = await page.context().cookies(tv.url);
  expect(cookies.map(({ name, value, httpOnly, sameSite, path }) => ({ name, value, httpOnly, sameSite, path })))
    .toEqual([{ name: `taskview-token-${tv.port}`, value: TOKEN, httpOnly: true, sameSite: 'Strict', path: '/' }]);
  expect(await page.evaluate(() => document.cookie), 'scripts cannot read it').toBe('');
  const transcript = await new AppPage(page).goto('task/task-demo-wave', tv);
  await transcript.waitConnected();

  const stranger = await openPage();
  errors.allow(stranger, /401/);
  for (const url of [tv.url, `${tv.url}task/task-demo-wave`, `${tv.url}?token=not-${TOKEN}`]) {
    const response = await stranger.goto(url);
    expect(response.status(), url).toBe(401);
    expect(await stranger.locator('body').innerText()).toContain('open the URL taskview printed');
  }
  expect(await stranger.context().cookies(tv.url), 'no cookie for a wrong token').toEqual([]);
});
