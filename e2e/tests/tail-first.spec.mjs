// Live sessions open tail-first (docs/behaviour.md §7, §10): `/task/…`
// reads the newest page first (`limit=100&sort=desc`) and older pages in the
// background (`before=<oldest>`), which land above the reader without moving
// them; a cold load reads the task, the session and its turns once each after
// the socket's subscription (besides the preview of the task and one screen of
// messages that its server announced with the page, first-visit.spec.mjs), and
// a board page its workflow list and snapshot once each.
import { test, expect } from '../lib/fixtures.mjs';
import { writeRecording } from '../lib/files.mjs';
import { session } from '../lib/sessions.mjs';
import { BoardPage } from '../pages/board.mjs';
import { TranscriptPage } from '../pages/transcript.mjs';

test.use({ viewport: { width: 1100, height: 800 } });

/** A recordings folder holding `name` with `messages`. */
function recordings(name, messages) {
  const dir = test.info().outputPath('recordings');
  writeRecording(dir, name, messages);
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
  await TranscriptPage.slowOlderPages(page, 400);
  const view = await TranscriptPage.openTask(page, server, 'rec-tail-json');
  await view.message('m4999').waitFor({ state: 'visible', timeout: 30000 });
  expect(await view.inView('m4999'), 'the newest row, at the bottom').toBe(true);
  // The preview (one screen, announced with the page), then the subscribed read.
  const pages = () => requests.filter((r) => r.includes('/messages') && !r.includes('limit=30&'));
  // The preview alone can show the newest row; the subscribed read follows it.
  await expect.poll(() => pages()[0], { message: 'the first page' }).toMatch(/limit=100&sort=desc$/);
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

/**
 * Opens a page cold with `open` (which waits until it shows something) and
 * the socket connected, waits long enough for a second read if there were
 * one, and returns how many API requests matched a predicate.
 */
async function coldLoad(page, open) {
  const requests = apiRequests(page);
  const opened = await open();
  await opened.waitConnected();
  await page.waitForTimeout(2500);
  return (what) => [requests.filter(what).length, requests.join(' ')];
}

test('a cold task page reads the task, the session and its turns once each after subscribing', async ({ page, app }) => {
  let view;
  const reads = await coldLoad(page, async () => {
    view = await TranscriptPage.openTask(page, app, 'task-demo-wave');
    await view.rows.first().waitFor();
    return view;
  });
  // Twice: the preview the server announced with the page, and the subscribed read.
  expect(reads((r) => r.startsWith('/api/v1/tasks/task-demo-wave'))).toEqual([2, expect.any(String)]);
  expect(reads((r) => r.includes('/messages?limit=30&'))).toEqual([1, expect.any(String)]);
  expect(reads((r) => r.includes('/messages?limit=100&'))).toEqual([1, expect.any(String)]);
  expect(reads((r) => r.endsWith('/turns'))).toEqual([1, expect.any(String)]);
  expect(await view.socketOpens()).toBe(1);
});

test('a cold board page reads the workflow list and the board once each', async ({ page, app }) => {
  const reads = await coldLoad(page, async () => {
    const board = await BoardPage.open(page, app, '?debug');
    await board.columns.first().waitFor();
    return board;
  });
  expect(reads((r) => r.split('?')[0] === '/api/v1/workflows')).toEqual([1, expect.any(String)]);
  expect(reads((r) => r.endsWith('/snapshot'))).toEqual([1, expect.any(String)]);
});
