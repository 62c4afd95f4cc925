// Deep links everywhere (docs/behaviour.md §4): `#msg-<id>` opens whatever contains the
// row and scrolls to it, on `/task/…` (live: rows from late older pages and
// from the socket), on long `/view` files and in `/embed/…`, for a card, a
// child inside a card and a row inside a group. The row stays in view
// (following the tail stops) until the reader scrolls it away.
//
// Generated sessions (lib/sessions.mjs) have turns of 20 messages: for turn k
// (ids `<prefix><n>`, n from the session's start), m<20k> asks, m<20k+1..3> is
// a group of three tool calls, m<20k+4..6> are subagent cards, m<20k+7..18>
// their children (m<20k+7> in m<20k+4>), and m<20k+19> answers.
import { test, expect } from '../lib/fixtures.mjs';
import { writeRecording as record } from '../lib/files.mjs';
import { session } from '../lib/sessions.mjs';
import { TranscriptPage } from '../pages/transcript.mjs';

test.use({ viewport: { width: 1100, height: 800 } });

/** Checks that `id` is in view, and that the list no longer follows its tail. */
async function expectHeld(view, id, newest) {
  await expect.poll(() => view.inView(id), { message: `${id} in view` }).toBe(true);
  expect(await view.inView(newest), 'following the tail stopped').toBe(false);
}

test.describe('on a live task page', () => {
  test('a child inside a card from a late older page is opened, shown and held as rows arrive', async ({ page, serve }) => {
    const dir = test.info().outputPath('recordings');
    record(dir, 'deep.json', session(3000));
    const server = await serve(['--recordings', dir, '--poll-ms', '100']);
    await TranscriptPage.slowOlderPages(page, 300);
    // m407 is a child of the card m404, in the oldest of four pages.
    const view = await TranscriptPage.openTaskAt(page, server, 'rec-deep-json', 'm407');
    await view.message('m407').waitFor({ state: 'visible', timeout: 60000 });
    await expect(view.card('m404').head).toHaveAttribute('aria-expanded', 'true');
    await expectHeld(view, 'm407', 'm2999');
    await view.waitForEntries(3000);
    // New rows over the socket (the recording grows): the link stays in view.
    record(dir, 'deep.json', [...session(3000), ...session(40, 'late', 5000)]);
    await view.waitForEntries(3040);
    await page.waitForTimeout(300);
    await expectHeld(view, 'm407', 'late5039');
    // The reader scrolls it away: it stays away as more rows arrive.
    await page.mouse.move(500, 400);
    await page.mouse.wheel(0, 3000);
    await page.waitForTimeout(300);
    expect(await view.inView('m407')).toBe(false);
    record(dir, 'deep.json', [...session(3000), ...session(60, 'late', 5000)]);
    await view.waitForEntries(3060);
    await page.waitForTimeout(300);
    expect(await view.inView('m407'), 'released').toBe(false);
  });

  test('a card that arrives over the socket after the page opened is shown', async ({ page, serve }) => {
    const dir = test.info().outputPath('recordings');
    record(dir, 'later.json', session(300));
    const server = await serve(['--recordings', dir, '--poll-ms', '100']);
    // late1004: the first card of the rows the recording will grow by.
    const view = await TranscriptPage.openTaskAt(page, server, 'rec-later-json', 'late1004');
    await view.waitConnected();
    await view.waitForEntries(300);
    record(dir, 'later.json', [...session(300), ...session(60, 'late', 1000)]);
    await view.message('late1004').waitFor({ state: 'visible', timeout: 30000 });
    await expectHeld(view, 'late1004', 'late1059');
  });

  test('a row inside a group, embedded', async ({ page, serve }) => {
    const dir = test.info().outputPath('recordings');
    record(dir, 'group.json', session(2000));
    const server = await serve(['--recordings', dir]);
    await TranscriptPage.slowOlderPages(page, 200);
    const view = await TranscriptPage.openTaskAt(page, server, 'rec-group-json', 'm402', { embed: true });
    await view.message('m402').waitFor({ state: 'visible', timeout: 60000 });
    await expect(page.getByTestId('app-header')).toHaveCount(0);
    await expectHeld(view, 'm402', 'm1999');
    await view.waitForEntries(2000);
    await expectHeld(view, 'm402', 'm1999');
  });
});

test.describe('in a long file', () => {
  const file = (serveFile) => serveFile({ name: 'long.json', text: JSON.stringify({ messages: session(10000) }) });

  test('a card near the end of a 10,000-message file', async ({ page, app, serveFile }) => {
    const view = await TranscriptPage.openFile(page, app, file(serveFile), { hash: '#msg-m9404', debug: true });
    await view.message('m9404').waitFor({ state: 'visible', timeout: 60000 });
    await view.progressBar.waitFor({ state: 'detached', timeout: 60000 });
    await expect.poll(() => view.inView('m9404')).toBe(true);
  });

  test('a child inside a card, embedded', async ({ page, app, serveFile }) => {
    const view = await TranscriptPage.openFile(page, app, file(serveFile), { hash: '#msg-m5007', embed: true, debug: true });
    await view.message('m5007').waitFor({ state: 'visible', timeout: 60000 });
    await expect(view.card('m5004').head).toHaveAttribute('aria-expanded', 'true');
    await view.progressBar.waitFor({ state: 'detached', timeout: 60000 });
    await expect.poll(() => view.inView('m5007')).toBe(true);
  });

  test('a row inside a group', async ({ page, app, serveFile }) => {
    const view = await TranscriptPage.openFile(page, app, file(serveFile), { hash: '#msg-m7802', debug: true });
    await view.message('m7802').waitFor({ state: 'visible', timeout: 60000 });
    await view.progressBar.waitFor({ state: 'detached', timeout: 60000 });
    await expect.poll(() => view.inView('m7802')).toBe(true);
    // A new link in the same page (hash change) moves there.
    await page.evaluate(() => { location.hash = '#msg-m120'; });
    await view.message('m120').waitFor({ state: 'visible', timeout: 20000 });
    await expect.poll(() => view.inView('m120')).toBe(true);
  });
});
