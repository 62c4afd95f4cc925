// The app shell: header, navigation between routes, embed without chrome.
import { test, expect } from '../lib/fixtures.mjs';
import { BoardPage } from '../pages/board.mjs';
import { TranscriptPage } from '../pages/transcript.mjs';
import { Timeline } from '../pages/timeline.mjs';
import { fanOut } from '../lib/sessions.mjs';

// 40 subagents: more lanes than a 720 px window has room for beside the list.
const FAN_OUT = { name: 'fan-out.json', text: JSON.stringify(fanOut(2000).messages) };
import { markDocument, sameDocument } from '../lib/poll.mjs';

test('the shell renders a header and navigation', async ({ page, app }) => {
  const board = await BoardPage.open(page, app);
  await board.header.waitFor();
  expect(await board.navBoard.textContent()).toBe('Board');
  await board.main.waitFor();
});

test('navigating to the file view and back works without a reload', async ({ page, app }) => {
  const board = await BoardPage.open(page, app);
  await board.header.waitFor();
  await markDocument(page);
  await board.navView.click();
  await page.waitForURL('**/view');
  await page.getByText('Open a transcript', { exact: false }).first().waitFor();
  expect(await board.navView.getAttribute('aria-current')).toBe('page');
  await board.navBoard.click();
  await page.waitForURL(app.url);
  expect(await sameDocument(page)).toBe(true);
});

test('back and forward move between pages without a reload', async ({ page, app }) => {
  const board = await BoardPage.open(page, app);
  await board.columns.first().waitFor();
  await markDocument(page);
  await board.navView.click();
  await page.waitForURL('**/view');
  await page.goBack();
  await page.waitForURL(app.url);
  await board.columns.first().waitFor();
  expect(await board.navBoard.getAttribute('aria-current')).toBe('page');
  await page.goForward();
  await page.waitForURL('**/view');
  expect(await board.navView.getAttribute('aria-current')).toBe('page');
  expect(await board.columns.count(), 'the board left').toBe(0);
  expect(await sameDocument(page), 'no reload').toBe(true);
});

test('a click that asks for a new tab is left to the browser', async ({ page, app }) => {
  const board = await BoardPage.open(page, app);
  await board.header.waitFor();
  const opened = page.context().waitForEvent('page');
  await board.navView.click({ modifiers: ['Shift'] });
  const other = await opened;
  await other.waitForURL('**/view');
  expect(new URL(page.url()).pathname, 'this page stays').toBe('/');
  await other.close();
});

test('a task route renders the task inside the shell', async ({ page, app }) => {
  const task = await TranscriptPage.openTask(page, app, 'task-demo-review', { debug: false });
  await task.header.waitFor();
  await task.title.filter({ hasText: 'Harden the sync closure' }).waitFor();
  await task.subagentCards.first().waitFor();
});

test('an unknown task says so (the only error is the 404 itself)', async ({ page, app, errors }) => {
  errors.allow(page, /status of 404/);
  const task = await TranscriptPage.openTask(page, app, 'no-such-task', { debug: false });
  await task.emptyState('Task no-such-task not found').waitFor();
});

test('embed routes render without app chrome', async ({ page, app }) => {
  const board = await BoardPage.open(page, app, 'embed/board/wf-demo');
  await board.main.waitFor();
  await board.columns.first().waitFor();
  expect(await board.header.count()).toBe(0);
});

// The list scrolls, the page does not: a transcript page's list ends at the
// window's bottom, alone or under the Timeline, on every transcript route of a
// wide window and of a phone. (The task page was 26 px taller than the window: its list's
// last rows hid under the window's edge, behind a second scroll bar.)
for (const [route, open] of [
  ['the task page', (page, app) => TranscriptPage.openTask(page, app, 'task-demo-wave', { debug: false })],
  ['the embedded task', (page, app) => new TranscriptPage(page).goto('embed/task/task-demo-wave', app)],
  ['the file view', (page, app, serveFile) => TranscriptPage.openFile(page, app, serveFile(FAN_OUT))],
  ['the embedded file view', (page, app, serveFile) => TranscriptPage.openFile(page, app, serveFile(FAN_OUT), { embed: true })],
]) {
  test(`${route} fits the window: its list ends at the bottom and the page does not scroll`, async ({ page, app, serveFile }) => {
    const view = await open(page, app, serveFile);
    await view.subagentCards.first().waitFor();
    const timeline = new Timeline(page);
    // On a phone the Timeline is a sheet over the list (the timeline tests).
    for (const [panel, width, height] of [['alone', 1280, 720], ['under the Timeline', 1280, 720], ['on a phone', 390, 800]]) {
      if (panel === 'on a phone') await timeline.toggle.click();
      await page.setViewportSize({ width, height });
      if (panel === 'under the Timeline') await timeline.open();
      const fit = await page.evaluate(() => {
        const list = document.querySelector('[data-testid="transcript"]').getBoundingClientRect();
        return { page: document.scrollingElement.scrollHeight, window: innerHeight, bottom: list.bottom };
      });
      expect(fit.page, `${panel}: the page is no taller than the window`).toBeLessThanOrEqual(fit.window);
      expect(fit.bottom, `${panel}: the list ends within 24 px of the window's bottom`).toBeGreaterThan(fit.window - 24);
    }
  });
}
