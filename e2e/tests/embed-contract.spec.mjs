// The two-way embed contract with a real cross-origin host (docs/behaviour.md §9,
// docs/embedding.md). Three origins on loopback: taskview on one port, the
// example host page (docs/embed-host.html) on another, served by a tiny Node
// server as http://127.0.0.1:<port> (allowed with --embed-origin) and as
// http://localhost:<port> (a third origin, not allowed).
import http from 'node:http';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { test, expect } from '../lib/fixtures.mjs';
import { ROOT } from '../lib/files.mjs';
import { session } from '../lib/sessions.mjs';
import { TranscriptPage } from '../pages/transcript.mjs';

const HOST_PAGE = readFileSync(path.join(ROOT, 'docs/embed-host.html'));
// A page of the third origin, framed by the host: it speaks the contract to
// its sibling (the taskview frame) and records anything taskview posts to it.
const THIRD_PAGE = `<!doctype html><link rel="icon" href="data:,"><script>
  window.heard = [];
  addEventListener('message', (e) => heard.push(e.data));
  window.speak = (messages) => {
    const tv = parent.frames[0];
    tv.postMessage({ taskview: 1, type: 'theme', theme: 'dark' }, '*');
    tv.postMessage({ taskview: 1, type: 'append', messages }, '*');
    tv.postMessage({ taskview: 1, type: 'reveal', id: 'x3' }, '*');
  };
</script>`;

/** The host pages' server, on a port of its own (all interfaces). */
async function startHost() {
  const server = http.createServer((req, res) => {
    const body = req.url.startsWith('/third.html') ? THIRD_PAGE : HOST_PAGE;
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    res.end(body);
  });
  await new Promise((r) => server.listen(0, r));
  const { port } = server.address();
  return { port, allowed: `http://127.0.0.1:${port}`, third: `http://localhost:${port}`, close: () => server.close() };
}

let host;
test.beforeAll(async () => { host = await startHost(); });
test.afterAll(() => host.close());

/** Opens the example host page at `origin`, framing `embedUrl`. */
async function openHost(page, origin, embedUrl, { max } = {}) {
  const query = new URLSearchParams({ taskview: embedUrl });
  if (max) query.set('max', String(max));
  await page.goto(`${origin}/embed-host.html?${query}`);
  return {
    frame: page.frameLocator('#taskview'),
    received: (type) => page.evaluate((t) => window.taskviewHost.received.filter((m) => m.type === t), type),
    send: (message) => page.evaluate((m) => window.taskviewHost.send(m), message),
    frameHeight: () => page.evaluate(() => window.taskviewHost.frame.clientHeight),
  };
}

/** The taskview frame as a Playwright Frame (to evaluate inside it). */
function tvFrame(page) {
  return page.frames().find((f) => f !== page.mainFrame() && new URL(f.url()).pathname.startsWith('/embed'));
}

/** Whether the taskview frame's document or its list scrolls. */
function frameScrolls(page) {
  return tvFrame(page).evaluate(() => {
    const doc = document.documentElement;
    const list = document.querySelector('[data-testid=transcript]');
    return doc.scrollHeight > doc.clientHeight + 1
      || (list !== null && list.scrollHeight > list.clientHeight + 1);
  });
}

test('ready, then an auto-height frame follows its content as the host appends, without a scrollbar', async ({ page, serve }) => {
  const tv = await serve(['--embed-origin', host.allowed]);
  const h = await openHost(page, host.allowed, `${tv.url}embed/view?debug`);
  await expect.poll(() => h.received('ready').then((r) => r.length), { message: 'ready' }).toBe(1);
  await h.frame.getByTestId('file-view').waitFor();
  await h.send({ type: 'append', messages: session(20, 'a') });
  await h.frame.getByTestId('subagent-card').nth(2).waitFor();
  await expect.poll(() => frameScrolls(page), { message: 'no scrollbar after 20 messages' }).toBe(false);
  const small = await h.frameHeight();
  await h.send({ type: 'append', messages: session(40, 'b', 100) });
  await expect.poll(() => h.frameHeight(), { message: 'the frame grew' }).toBeGreaterThan(small + 100);
  await expect.poll(() => frameScrolls(page), { message: 'no scrollbar after 60 messages' }).toBe(false);
  const resizes = await h.received('resize');
  expect(resizes.at(-1).height, "the frame is as tall as the last resize").toBe(await h.frameHeight());
});

test('the theme switches light, dark and back to auto without a reload', async ({ page, serve }) => {
  await page.emulateMedia({ colorScheme: 'light' });
  const tv = await serve(['--embed-origin', host.allowed]);
  const h = await openHost(page, host.allowed, `${tv.url}embed/view`);
  await expect.poll(() => h.received('ready').then((r) => r.length)).toBe(1);
  const background = () => tvFrame(page).evaluate(() => getComputedStyle(document.body).backgroundColor);
  const light = await background();
  await page.evaluate(() => { window.loads = 0; window.taskviewHost.frame.addEventListener('load', () => window.loads++); });
  await h.send({ type: 'theme', theme: 'dark' });
  await expect.poll(background, { message: 'dark' }).toBe('rgb(21, 23, 27)');
  await h.send({ type: 'theme', theme: 'auto' });
  await expect.poll(background, { message: 'auto follows the system (light)' }).toBe(light);
  await page.emulateMedia({ colorScheme: 'dark' });
  await expect.poll(background, { message: 'auto follows the system (dark)' }).toBe('rgb(21, 23, 27)');
  await h.send({ type: 'theme', theme: 'light' });
  await expect.poll(background, { message: 'light over a dark system' }).toBe(light);
  expect(await page.evaluate(() => window.loads), 'reloads').toBe(0);
});

test('reveal opens the card holding a message and scrolls to it; opening a card tells the host with its deep link', async ({ page, serve, serveFile }) => {
  const tv = await serve(['--embed-origin', host.allowed]);
  const src = serveFile({ name: 'reveal.json', text: JSON.stringify({ messages: session(400) }) });
  const h = await openHost(page, host.allowed, `${tv.url}embed/view?src=${encodeURIComponent(src)}`, { max: 500 });
  await h.frame.getByTestId('subagent-card').first().waitFor();
  // m307 is a child of the card m304, far below the first screen.
  const inView = (id) => new TranscriptPage(tvFrame(page)).inView(id);
  expect(await inView('m307')).toBe(false);
  await h.send({ type: 'reveal', id: 'm307' });
  await expect.poll(() => inView('m307'), { message: 'm307 revealed' }).toBe(true);
  await expect(h.frame.locator('[id="msg-m304"] > button.card-head')).toHaveAttribute('aria-expanded', 'true');

  // The reader opens another card: the host hears which, with its deep link.
  const head = h.frame.locator('[id="msg-m324"] > button.card-head');
  await head.scrollIntoViewIfNeeded();
  await head.click();
  await expect.poll(() => h.received('navigate').then((n) => n.length), { message: 'navigate' }).toBe(1);
  const [navigate] = await h.received('navigate');
  expect(navigate).toEqual({
    taskview: 1,
    type: 'navigate',
    id: 'm324',
    kind: 'card',
    link: `${tv.url}view?src=${encodeURIComponent(src)}#msg-m324`,
  });
  // Closing it is not a navigation.
  await head.click();
  await page.waitForTimeout(300);
  expect((await h.received('navigate')).length).toBe(1);
});

test("a third origin's messages change nothing and it hears nothing", async ({ page, serve }) => {
  await page.emulateMedia({ colorScheme: 'light' });
  const tv = await serve(['--embed-origin', host.allowed]);
  const h = await openHost(page, host.allowed, `${tv.url}embed/view?debug`);
  await expect.poll(() => h.received('ready').then((r) => r.length)).toBe(1);
  await h.frame.getByTestId('file-view').waitFor();
  const third = await page.evaluate((src) => new Promise((resolve) => {
    const f = document.body.appendChild(document.createElement('iframe'));
    f.onload = () => resolve(true);
    f.src = src;
  }), `${host.third}/third.html`);
  expect(third).toBe(true);
  const thirdFrame = page.frames().find((f) => f.url().startsWith(host.third));
  await thirdFrame.evaluate((ms) => window.speak(ms), session(20, 'x'));
  const ignored = () => tvFrame(page).evaluate(() => window.__taskview.embedIgnored());
  await expect.poll(() => ignored().then((c) => c.notParent), { message: 'ignored and counted' }).toBe(3);
  expect(await h.frame.getByTestId('subagent-card').count(), 'appended cards').toBe(0);
  expect(await tvFrame(page).evaluate(() => document.documentElement.dataset.theme ?? 'auto')).toBe('auto');
  // The allowed host is still obeyed, and an unknown type is ignored and counted.
  await h.send({ type: 'confetti' });
  await h.send({ type: 'theme', theme: 'dark' });
  await expect.poll(() => tvFrame(page).evaluate(() => document.documentElement.dataset.theme)).toBe('dark');
  expect(await ignored()).toEqual({ notParent: 3, origin: 0, unknown: 1 });
  await h.send({ type: 'append', messages: session(20, 'a') });
  await h.frame.getByTestId('subagent-card').nth(2).waitFor();
  expect(await thirdFrame.evaluate(() => window.heard), 'posts reach only the host').toEqual([]);
});

test('a page of an origin outside the list cannot frame taskview (CSP frame-ancestors)', async ({ page, serve, errors }) => {
  errors.allow(page, /frame-ancestors/);
  const tv = await serve(['--embed-origin', host.allowed]);
  const h = await openHost(page, host.third, `${tv.url}embed/view`);
  await expect.poll(() => errors.of(page).some((e) => /frame-ancestors/.test(e)), { message: 'the CSP refused' }).toBe(true);
  await page.waitForTimeout(500);
  expect(await h.received('ready'), 'nothing from a refused frame').toEqual([]);
  expect(page.frames().some((f) => f.url().startsWith(tv.url)), 'no taskview document').toBe(false);
});

test('without --embed-origin only the same origin may frame taskview', async ({ page, serve, errors }) => {
  errors.allow(page, /frame-ancestors/);
  const tv = await serve([]);
  const h = await openHost(page, host.allowed, `${tv.url}embed/view`);
  await expect.poll(() => errors.of(page).some((e) => /frame-ancestors/.test(e)), { message: 'the CSP refused' }).toBe(true);
  expect(await h.received('ready')).toEqual([]);
});
