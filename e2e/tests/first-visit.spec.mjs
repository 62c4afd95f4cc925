// A first visit to a task page (docs/behaviour.md §10): the server announces the reads the
// page makes first with the page (`Link: rel=preload`), so they travel with the
// app's files, and the page uses exactly those answers (same URL, same
// credentials mode) to show the task and one screen of its newest messages
// before its socket subscribes; the subscribed read follows as before.
import { test, expect } from '../lib/fixtures.mjs';
import { writeRecording } from '../lib/files.mjs';
import { session } from '../lib/sessions.mjs';
import { TranscriptPage } from '../pages/transcript.mjs';

test.use({ viewport: { width: 1100, height: 800 } });

const TASK = 'rec-first-json';
const PREVIEW = `/api/v1/task-sessions/sess-${TASK}/messages?limit=30&sort=desc`;

/** A server of recordings holding one task of `count` messages. */
async function recordings(serve, count) {
  const dir = test.info().outputPath('recordings');
  writeRecording(dir, 'first.json', session(count));
  return serve(['--recordings', dir]);
}

/** The page's API requests (path and query) and its console warnings. */
function watch(page) {
  const seen = { requests: [], warnings: [] };
  page.on('request', (r) => {
    const url = new URL(r.url());
    if (url.pathname.startsWith('/api/')) seen.requests.push(`${url.pathname}${url.search}`);
  });
  page.on('console', (m) => { if (m.type() === 'warning') seen.warnings.push(m.text()); });
  return seen;
}

test('a cold task page uses the answers its server announced, each fetched once', async ({ page, serve }) => {
  const server = await recordings(serve, 500);
  const seen = watch(page);
  const response = await page.goto(`${server.url}task/${TASK}?debug`);
  expect(response.headers().link, 'the reads announced with the page')
    .toBe(`</api/v1/tasks/${TASK}>; rel=preload; as=fetch; crossorigin, <${PREVIEW}>; rel=preload; as=fetch; crossorigin`);
  const view = new TranscriptPage(page);
  await view.message('m499').waitFor({ timeout: 30000 });
  await view.waitConnected();
  await view.waitForEntries(500, { timeoutMs: 30000 });
  // Chromium says so when a preload is not used within a few seconds.
  await page.waitForTimeout(3500);
  const count = (path) => seen.requests.filter((r) => r === path).length;
  expect(count(PREVIEW), `the preview's page: the preload alone (${seen.requests.join(' ')})`).toBe(1);
  expect(count(`/api/v1/tasks/${TASK}`), 'the preload, then the subscribed read').toBe(2);
  expect(seen.warnings.filter((w) => /preload/.test(w) && !/integrity/.test(w)), 'no preload left unused').toEqual([]);
});

test('the newest rows show from the announced reads before the socket subscribes', async ({ page, serve }) => {
  const server = await recordings(serve, 500);
  const seen = watch(page);
  // A socket that opens but never answers: the subscribed read cannot begin.
  await page.routeWebSocket(/\/ws$/, () => {});
  const view = await TranscriptPage.openTask(page, server, TASK);
  await view.message('m499').waitFor({ timeout: 30000 });
  expect(await view.inView('m499'), 'the newest row, at the bottom').toBe(true);
  expect(seen.requests.filter((r) => r.includes('/messages')), 'only the preview').toEqual([PREVIEW]);
  expect((await view.memory()).entries, 'one screen of messages').toBe(30);
});
