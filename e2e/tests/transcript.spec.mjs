// The transcript of a finished kandev session opened by URL (docs/behaviour.md §2–§4, §7):
// the two review-wave cards and the groups, expanding, and `#msg-<id>` anchors.
import { test, expect } from '../lib/fixtures.mjs';
import { TranscriptPage } from '../pages/transcript.mjs';

const WAVE = 'tests/fixtures/session-review-wave.json';

test.use({ viewport: { width: 1100, height: 900 } });

/** Opens the review wave in `page` and waits for both cards. */
async function openWave(page, app, serveFile, options) {
  const view = await TranscriptPage.openFile(page, app, serveFile(WAVE), options);
  await view.subagentCards.nth(1).waitFor();
  return view;
}

test('the review wave shows two top-level cards with summaries and chips', async ({ page, app, serveFile }) => {
  const view = await openWave(page, app, serveFile);
  // Every card on the page, nested ones included, is one of these two.
  expect(await view.subagentCards.count()).toBe(2);
  const faces = (await view.topLevelFaces()).map((c) => c.face);
  expect(faces).toEqual([
    { type: 'code-reviewer', description: 'pass over the closure diff',
      descriptionTitle: 'Code-reviewer pass over the closure diff', status: null, childCount: '3 tool calls',
      summary: 'VERDICT: REQUEST_CHANGES',
      chips: [['duration', '4m 03s'], ['tokens', '48.2k tokens'], ['model', 'claude-opus-4-8[1m]']], notLoaded: false },
    { type: 'test-supervisor', description: 'review of new invariant tests',
      descriptionTitle: 'Test-supervisor review of new invariant tests', status: null, childCount: '2 tool calls',
      summary: 'APPROVE',
      chips: [['duration', '1m 30s'], ['tokens', '21k tokens'], ['tools', '5 tools'], ['model', 'claude-sonnet-4-7']],
      notLoaded: false },
  ]);
  expect(await view.dialect.textContent()).toBe('kandev message list');
});

test('groups read "2 tool calls · 1 thought" and "4 tool calls"', async ({ page, app, serveFile }) => {
  const view = await openWave(page, app, serveFile);
  expect(await view.groupLabels.allTextContents()).toEqual(['2 tool calls · 1 thought', '4 tool calls']);
});

test('clicking a card expands its full result above its children', async ({ page, app, serveFile }) => {
  const view = await openWave(page, app, serveFile);
  const card = view.card('m013');
  await card.head.click();
  await card.resultText.waitFor();
  expect(await card.resultText.textContent()).toContain('VERDICT: REQUEST_CHANGES');
  const childrenFollow = await card.resultText.evaluate((r) => Boolean(r.compareDocumentPosition(
    r.parentElement.querySelector(':scope > .card-children')) & Node.DOCUMENT_POSITION_FOLLOWING));
  expect(childrenFollow, 'the result comes before the children').toBe(true);
  expect(await card.childIds()).toEqual(['m015', 'm017', 'm019']);
  expect(await card.summary.count()).toBe(0);
  expect(await card.head.getAttribute('aria-expanded')).toBe('true');
});

test('card headers work from the keyboard: Enter opens, Space closes', async ({ page, app, serveFile }) => {
  const view = await openWave(page, app, serveFile);
  const card = view.card('m014');
  await card.head.focus();
  await page.keyboard.press('Enter');
  await card.resultText.waitFor();
  expect(await card.head.getAttribute('aria-expanded')).toBe('true');
  await page.keyboard.press('Space');
  await card.resultText.waitFor({ state: 'detached' });
  expect(await card.head.getAttribute('aria-expanded')).toBe('false');
});

test('a group expands to its members', async ({ page, app, serveFile }) => {
  const view = await openWave(page, app, serveFile);
  const group = view.groups.nth(1);
  await group.locator('button').click();
  await view.message('m012').waitFor();
  expect(await group.locator('[id^=msg-]').evaluateAll((els) => els.map((e) => e.id)))
    .toEqual(['msg-m009', 'msg-m010', 'msg-m011', 'msg-m012']);
});

test('opening #msg-<child id> expands its card and shows the child', async ({ page, app, serveFile }) => {
  await page.setViewportSize({ width: 1100, height: 500 });
  const view = await TranscriptPage.openFile(page, app, serveFile(WAVE), { hash: '#msg-m018' });
  const child = view.message('m018');
  await child.waitFor({ state: 'visible' });
  expect(await child.isVisible()).toBe(true);
  expect(await view.card('m014').head.getAttribute('aria-expanded')).toBe('true');
  const inView = await child.evaluate((el) => {
    const r = el.getBoundingClientRect();
    return r.bottom > 0 && r.top < window.innerHeight;
  });
  expect(inView, 'scrolled into view').toBe(true);
});
