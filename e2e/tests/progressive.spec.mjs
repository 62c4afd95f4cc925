// A big file opens progressively (docs/behaviour.md §10): its first rows show
// while the rest is read in chunks under an accessible progress bar, which
// goes away once the file is read whole; the reader stays at the top.
import { test, expect } from '../lib/fixtures.mjs';
import { recordStates, recordedStates } from '../lib/poll.mjs';
import { session } from '../lib/sessions.mjs';
import { TranscriptPage } from '../pages/transcript.mjs';

test.use({ viewport: { width: 1100, height: 800 } });

test('a 20,000-message file shows rows and a progress bar before it is read whole', async ({ page, app, serveFile }) => {
  const src = serveFile({ name: 'big.json', text: JSON.stringify({ messages: session(20000) }) });
  // Every state from the start: how many rows are on screen, and the bar's values.
  await page.addInitScript(() => {
    window.__seen = [];
    new MutationObserver(() => {
      const bar = document.querySelector('[role=progressbar]');
      const state = `${document.querySelectorAll('.row-slot').length}|${bar ? bar.getAttribute('aria-valuenow') : '-'}`;
      if (window.__seen.at(-1) !== state) window.__seen.push(state);
    }).observe(document, { childList: true, subtree: true, attributes: true });
  });
  const view = await TranscriptPage.openFile(page, app, src, { debug: true });
  await view.progressBar.waitFor({ timeout: 30000 });
  await expect(view.progressBar).toHaveAttribute('aria-valuemin', '0');
  await expect(view.progressBar).toHaveAttribute('aria-valuemax', '100');
  await expect(view.progressBar).toHaveAccessibleName('Reading the transcript');
  await expect(view.progressBar).toHaveAttribute('aria-valuetext', /^\d+% read$/);
  await view.progressBar.waitFor({ state: 'detached', timeout: 120000 });
  await expect(view.dialect).toHaveText('kandev message list');
  await view.waitForEntries(20000);
  const seen = (await page.evaluate(() => window.__seen)).map((s) => s.split('|'));
  const whileReading = seen.filter(([rows, bar]) => bar !== '-' && Number(rows) > 0);
  expect(whileReading.length, `rows showed under the bar: ${JSON.stringify(seen)}`).toBeGreaterThan(0);
  expect(whileReading.some(([, bar]) => Number(bar) < 100), 'rows before the file was read').toBe(true);
  const values = seen.map(([, bar]) => bar).filter((b) => b !== '-').map(Number);
  expect(values, 'the bar only moves forward').toEqual([...values].sort((a, b) => a - b));
  expect(new Set(values).size, 'the bar moved').toBeGreaterThan(2);
  // The reader was left at the top while the rest arrived below.
  expect(await view.inView('m0')).toBe(true);
});

test('a file opened while another is still being read replaces it', async ({ page, app, serveFile }) => {
  const big = serveFile({ name: 'first.json', text: JSON.stringify({ messages: session(20000) }) });
  const small = serveFile({ name: 'second.json', text: JSON.stringify({ messages: session(40, 'second') }) });
  const view = await TranscriptPage.openFile(page, app, big, { debug: true });
  await view.progressBar.waitFor({ timeout: 30000 });
  await recordStates(page, () => document.querySelector('[data-testid=load-status]')?.textContent ?? '');
  await page.evaluate((src) => {
    history.pushState(null, '', `/view?src=${encodeURIComponent(src)}&debug`);
    dispatchEvent(new PopStateEvent('popstate'));
  }, small);
  await expect(view.loadStatus).toContainText('second.json', { timeout: 30000 });
  await page.waitForTimeout(500);
  expect((await view.memory()).entries, 'only the second file').toBe(40);
  expect(await view.inView('second0')).toBe(true);
  const states = await recordedStates(page);
  expect(states.at(-1)).toContain('second.json');
});
