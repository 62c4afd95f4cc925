// Live sessions open tail-first (SPEC.md §7, §10; issue 16): `/task/…` reads
// the newest page first (`limit=100&sort=desc`) and older pages in the
// background (`before=<oldest>`), which land above the reader without moving
// them; a cold load reads the task, the session and its turns once each (the
// read waits for the socket's subscription instead of reading twice), and a
// board page its workflow list and snapshot once each.
import { mkdirSync, writeFileSync } from 'node:fs';
import { test, expect } from '../lib/fixtures.mjs';
import { session } from '../lib/sessions.mjs';
import { BoardPage } from '../pages/board.mjs';
import { TranscriptPage } from '../pages/transcript.mjs';

test.use({ viewport: { width: 1100, height: 800 } });

/** A recordings folder holding `name` with `messages` (a kandev list). */
function recordings(name, messages) {
  const dir = test.info().outputPath('recordings');
  mkdirSync(dir, { recursive: true });
  writeFileSync(`${dir}/${name}`, JSON.stringify({ messages }));
  return dir;
}

/** Records the page's API requests (path and query). */
function apiRequests(page) {
  const seen = [];
  page.on('request', (r) => {
    const url = new URL(r.url());
    if (url.pathname.startsWith('/api/')) seen.push(`${url.pathname}${url.search}`);
  });
  return seen;
}

/** Older pages (`before=`) answer `ms` later, so a test can act while they land. */
const slowOlderPages = (page, ms) => page.route(
  (url) => url.pathname.endsWith('/messages') && url.searchParams.has('before'),
  async (route) => { await new Promise((r) => setTimeout(r, ms)); await route.continue(); },
);

/** The first row whose top is inside the list, and where it is. */
const firstRowInView = (page) => page.evaluate(() => {
  const list = document.querySelector('[data-testid=transcript]').getBoundingClientRect();
  const slot = [...document.querySelectorAll('.row-slot')].find((s) => s.getBoundingClientRect().top >= list.top);
  return { key: slot.dataset.rowKey, top: slot.getBoundingClientRect().top };
});

const rowTop = (page, key) => page.evaluate((key) =>
  document.querySelector(`.row-slot[data-row-key="${key}"]`)?.getBoundingClientRect().top, key);

test('the newest page shows first and older pages land above without moving the reader', async ({ page, serve }) => {
  const server = await serve(['--recordings', recordings('tail.json', session(5000))]);
  const requests = apiRequests(page);
  await slowOlderPages(page, 400);
  const view = await TranscriptPage.openTask(page, server, 'rec-tail-json');
  await view.message('m4999').waitFor({ state: 'visible', timeout: 30000 });
  expect(await view.inView('m4999'), 'the newest row, at the bottom').toBe(true);
  const pages = () => requests.filter((r) => r.includes('/messages'));
  expect(pages()[0], 'the first page').toMatch(/limit=100&sort=desc/);
  expect(pages()[0]).not.toContain('before=');
  expect((await view.memory()).entries, 'older pages still to come').toBeLessThan(5000);
  // The reader scrolls up a little while the older pages land.
  await page.mouse.move(500, 400);
  await page.mouse.wheel(0, -700);
  await page.waitForTimeout(300);
  const anchor = await firstRowInView(page);
  expect((await view.memory()).entries, 'older pages still to come').toBeLessThan(5000);
  await view.waitForEntries(5000, { timeoutMs: 60000 });
  await page.waitForTimeout(300);
  const after = await rowTop(page, anchor.key);
  expect(after, `row ${anchor.key} on screen`).not.toBeUndefined();
  expect(Math.abs(after - anchor.top), `row ${anchor.key} moved from ${anchor.top} to ${after}`).toBeLessThanOrEqual(2);
  // Each older page ends before the oldest message read so far.
  expect(pages().slice(1).map((r) => new URL(r, server.url).searchParams.get('before')))
    .toEqual(['m4900', 'm3900', 'm2900', 'm1900', 'm900']);
});

test('a cold task page reads the task, the session and its turns once each', async ({ page, app }) => {
  const requests = apiRequests(page);
  const view = await TranscriptPage.openTask(page, app, 'task-demo-wave');
  await view.waitConnected();
  await view.rows.first().waitFor();
  // Time for a second read, if there were one.
  await page.waitForTimeout(2500);
  const count = (what) => requests.filter(what).length;
  expect(count((r) => r.startsWith('/api/v1/tasks/task-demo-wave')), `task reads in ${requests}`).toBe(1);
  expect(count((r) => r.includes('/messages') && !r.includes('before=')), `session reads in ${requests}`).toBe(1);
  expect(count((r) => r.endsWith('/turns')), `turn reads in ${requests}`).toBe(1);
  expect(await view.socketOpens()).toBe(1);
});

test('a cold board page reads the workflow list and the board once each', async ({ page, app }) => {
  const requests = apiRequests(page);
  const board = await BoardPage.open(page, app, '?debug');
  await board.waitConnected();
  await board.columns.first().waitFor();
  await page.waitForTimeout(2500);
  const count = (what) => requests.filter(what).length;
  expect(count((r) => r.startsWith('/api/v1/workflows?') || r === '/api/v1/workflows'), `list reads in ${requests}`).toBe(1);
  expect(count((r) => r.endsWith('/snapshot')), `board reads in ${requests}`).toBe(1);
});
