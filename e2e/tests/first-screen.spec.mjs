// A task page's first screen (docs/behaviour.md §10): the server writes the newest rows
// into the page with the app's own components, so they show before the app
// has loaded; the app takes it over once its own rows stand in the same
// places (no jump), untrusted text in it is text, and a link to a message
// skips it.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { test, expect } from '../lib/fixtures.mjs';
import { ROOT, writeRecording } from '../lib/files.mjs';
import { everyRowKind, session } from '../lib/sessions.mjs';
import { TranscriptPage } from '../pages/transcript.mjs';

/** A server of recordings holding `name` with `messages`. */
async function recordings(serve, name, messages) {
  const dir = test.info().outputPath('recordings');
  writeRecording(dir, name, messages);
  return serve(['--recordings', dir]);
}

/** Holds every request matching `pattern` until the returned function is called. */
async function hold(page, pattern) {
  let release;
  const held = new Promise((r) => { release = r; });
  await page.route(pattern, async (route) => { await held; await route.continue(); });
  return release;
}

/** Each row in view: its key, box, words, and whether the first screen holds it. */
const rowsInView = (page) => page.evaluate(() => [...document.querySelectorAll('.row-slot')]
  .map((slot) => {
    const box = slot.getBoundingClientRect();
    return { key: slot.dataset.rowKey, top: box.top, left: box.left, width: box.width, height: box.height,
      text: slot.textContent.replace(/\s+/g, ' ').trim(), screen: Boolean(slot.closest('#first-screen')) };
  })
  .filter((row) => row.top < window.innerHeight && row.top + row.height > 0));

for (const viewport of [{ width: 1200, height: 900 }, { width: 390, height: 800 }]) {
  test(`the app takes the first screen over without a jump (${viewport.width}px)`, async ({ page, serve }) => {
    await page.setViewportSize(viewport);
    const server = await recordings(serve, 'screen.json', session(2000));
    const app = await hold(page, /\.wasm$/);
    // The subscribed read would change the rows above (cards whose calls it brings).
    const subscribedRead = await hold(page, /messages\?limit=100&/);
    await page.goto(`${server.url}task/rec-screen-json`);
    await page.locator('#first-screen .row-slot').last().waitFor();
    const written = await rowsInView(page);
    expect(written.length, 'rows before the app').toBeGreaterThan(3);
    expect(written.every((row) => row.screen)).toBe(true);
    const newest = written.at(-1);
    expect(newest.text, 'the newest message, at the bottom').toContain('Turn 100 done');
    app();
    await page.locator('#first-screen').waitFor({ state: 'detached', timeout: 30000 });
    const shown = await rowsInView(page);
    expect(shown.every((row) => !row.screen)).toBe(true);
    expect(shown.map(({ screen, ...row }) => row), 'the same rows in the same places')
      .toEqual(written.map(({ screen, ...row }) => row));
    subscribedRead();
    await new TranscriptPage(page).waitConnected();
  });
}

test('untrusted text in the first screen is text', async ({ page, serve }) => {
  const vectors = JSON.parse(readFileSync(path.join(ROOT, 'e2e/fixtures/xss-vectors.json'), 'utf8')).vectors
    .map((v) => v.text);
  const server = await recordings(serve, 'xss.json', vectors.slice(0, 8).flatMap((v, i) => everyRowKind(i, v)));
  await page.addInitScript(() => {
    window.__xss = 0;
    window.alert = () => { window.__xss += 1; };
  });
  await hold(page, /\.wasm$/);
  await page.goto(`${server.url}task/rec-xss-json`);
  await page.locator('#first-screen .row-slot').last().waitFor();
  const seen = await page.evaluate(() => {
    const screen = document.getElementById('first-screen');
    const handlers = [...screen.querySelectorAll('*')]
      .flatMap((el) => [...el.attributes].filter((a) => a.name.startsWith('on')).map((a) => `${el.tagName} ${a.name}`));
    const forbidden = [...screen.querySelectorAll('script, iframe, object, embed, svg, math, style, link, meta, base, form')]
      .map((el) => el.tagName);
    return { handlers, forbidden, canary: window.__xss, text: screen.textContent };
  });
  expect(seen.handlers, 'no event handler attributes').toEqual([]);
  expect(seen.forbidden, 'no script-capable or embedding element').toEqual([]);
  expect(seen.canary, 'the canary never fired').toBe(0);
  expect(seen.text, 'a vector shown as text').toContain(vectors[7]);
});

test('a link to a message opens there, without the first screen', async ({ page, serve }) => {
  const server = await recordings(serve, 'linked.json', session(2000));
  const view = await TranscriptPage.openTaskAt(page, server, 'rec-linked-json', 'm40');
  await view.message('m40').waitFor({ timeout: 30000 });
  await expect(page.locator('#first-screen')).toHaveCount(0);
  await expect.poll(() => view.inView('m40')).toBe(true);
});
