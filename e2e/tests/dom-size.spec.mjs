// A flat DOM (docs/behaviour.md §10): a 10,000-message transcript on a wide
// screen, its roster open beside it (1,500 subagents), holds at most 400
// elements, at its start, at its end and after live messages are appended;
// and so it does with the Timeline of its 1,500 runs open, packed or not.
// And it is painted in a few compositor layers: each live batch pays to paint,
// layerize and commit every layer (a compositing hint on the list once split
// its rows into ~20). Counts are sizes, not timers: the same file gives the same count.
import { test, expect } from '../lib/fixtures.mjs';
import { session } from '../lib/sessions.mjs';
import { Roster } from '../pages/fanout.mjs';
import { Timeline } from '../pages/timeline.mjs';
import { TranscriptPage } from '../pages/transcript.mjs';

const MAX_ELEMENTS = 400;
/** The page's own layers (viewport, document, scroller) and room for a few more; not one per row. */
const MAX_LAYERS = 8;
const elements = (page) => page.evaluate(() => document.getElementsByTagName('*').length);

test.use({ viewport: { width: 1280, height: 900 } });

/** The 10,000-message file read whole, its roster open with its 1,500 subagents. */
async function openTenThousand(page, app, serveFile) {
  const src = serveFile({ name: 'ten-thousand.json', text: JSON.stringify({ messages: session(10000) }) });
  const view = await TranscriptPage.openFile(page, app, src, { debug: true });
  await expect(view.dialect).toBeVisible({ timeout: 60000 });
  await expect(view.progressBar).toHaveCount(0, { timeout: 60000 });
  const roster = new Roster(page);
  await expect(roster.panel).toBeVisible();
  await expect.poll(() => roster.count()).toBe(1500);
  return { view, roster };
}

test('a 10k-message transcript with the roster open holds at most 400 elements, before and after live appends', async ({ page, app, serveFile }) => {
  test.setTimeout(120000);
  const { view, roster } = await openTenThousand(page, app, serveFile);
  await expect(roster.items.first()).toBeVisible();
  const atStart = await elements(page);
  expect(atStart, `elements at the start: ${atStart}`).toBeLessThanOrEqual(MAX_ELEMENTS);

  await view.scroller.evaluate((s) => { s.scrollTop = s.scrollHeight; });
  await roster.list.evaluate((l) => { l.scrollTop = l.scrollHeight; });
  await expect(view.rows.last()).toBeVisible();
  const atEnd = await elements(page);
  expect(atEnd, `elements at the end: ${atEnd}`).toBeLessThanOrEqual(MAX_ELEMENTS);

  const appended = session(100, 'live-', 10010);
  await view.append(appended);
  await expect(page.locator(`#msg-${appended.at(-1).id}`)).toBeAttached();
  await expect.poll(() => roster.count()).toBe(1515);
  const afterAppends = await elements(page);
  expect(afterAppends, `elements after the appends: ${afterAppends}`).toBeLessThanOrEqual(MAX_ELEMENTS);
});

test('the Timeline open beside the roster on a 10k-message transcript, packed or not, keeps the page within 400 elements', async ({ page, app, serveFile }) => {
  test.setTimeout(120000);
  await openTenThousand(page, app, serveFile);
  const timeline = new Timeline(page);
  await timeline.open();
  await expect.poll(async () => (await timeline.snapshot()).runs.length).toBe(1500);
  const unpacked = await elements(page);
  expect(unpacked, `elements, one row per run: ${unpacked}`).toBeLessThanOrEqual(MAX_ELEMENTS);

  await timeline.pack.click();
  await expect(timeline.clusters.first()).toBeVisible();
  const packed = await elements(page);
  expect(packed, `elements, packed: ${packed}`).toBeLessThanOrEqual(MAX_ELEMENTS);
  // Every run of the rows drawn is a bar or counted in a cluster.
  const counted = await timeline.clusters.evaluateAll((cs) => cs.reduce((n, c) => n + Number(c.textContent), 0));
  expect(counted + await timeline.bars.count()).toBe(1500);
});

test('a 10k-message transcript with the roster open is painted in at most 8 compositor layers, after live appends too', async ({ page, app, serveFile }) => {
  test.setTimeout(120000);
  const { view } = await openTenThousand(page, app, serveFile);
  await view.scroller.evaluate((s) => { s.scrollTop = s.scrollHeight; });
  // At the end, so the list follows the tail the appends grow.
  await expect(view.rows.last()).toBeVisible();
  const appended = session(40, 'live-', 10010);
  await view.append(appended);
  await expect(page.locator(`#msg-${appended.at(-1).id}`)).toBeAttached();

  const cdp = await page.context().newCDPSession(page);
  let layers = null;
  cdp.on('LayerTree.layerTreeDidChange', (e) => { if (e.layers) layers = e.layers; });
  await cdp.send('LayerTree.enable');
  // A frame that changes something, so the tree is reported.
  await view.scroller.evaluate((s) => { s.scrollTop -= 40; });
  await expect.poll(() => layers?.length ?? 0).toBeGreaterThan(0);
  expect(layers.length, `layers: ${layers.length}`).toBeLessThanOrEqual(MAX_LAYERS);
});
