// Finding one's way through a fan-out (docs/behaviour.md §8), end to end: the roster,
// search, the board chip's drill-down and the honest lifecycle, on a generated
// 2,000-message fan-out (40 subagents, 3 with a nested one) and on the demo's
// review waves; keyboard only and by accessible names.
import { test, expect } from '../lib/fixtures.mjs';
import { eventually } from '../lib/poll.mjs';
import { fanOut } from '../lib/sessions.mjs';
import { BoardPage } from '../pages/board.mjs';
import { ChipPopover, Roster, Search, subagentRows } from '../pages/fanout.mjs';
import { TranscriptPage } from '../pages/transcript.mjs';

const FAN_OUT = fanOut(2000);
const fanOutFile = (serveFile) => serveFile({ name: 'fan-out.json', text: JSON.stringify(FAN_OUT.messages) });

/** `/view?debug&src=` of the generated fan-out. */
async function openFanOut(page, app, serveFile, hash = '') {
  const src = fanOutFile(serveFile);
  const view = await new TranscriptPage(page).goto(`view?debug&src=${encodeURIComponent(src)}${hash}`, app);
  await view.subagentCards.first().waitFor();
  return view;
}

/**
 * `/view?debug` with the generated fan-out pushed by the host page: a live
 * source, whose running subagents read running (a file opened is still, and
 * reads them interrupted, docs/behaviour.md §8).
 */
async function pushFanOut(page, app) {
  const view = await TranscriptPage.openPushed(page, app, FAN_OUT.messages);
  await view.subagentCards.first().waitFor();
  return view;
}

/** The first child of subagent `parent` in the generated fan-out. */
const firstChildOf = (parent) => FAN_OUT.messages.find((m) => m.metadata.parent_tool_call_id === `tc-${parent}`
  && m.type === 'tool_read');

test('the roster lists every subagent in the store\'s order, nested ones under their parent', async ({ page, app, serveFile }) => {
  const view = await openFanOut(page, app, serveFile);
  const roster = new Roster(page);
  await expect(roster.panel, 'a side panel on a wide screen').toBeVisible();
  await expect.poll(() => roster.count()).toBe(43);
  const listed = await roster.listed();
  const generated = FAN_OUT.subagents.map((s) => [s.id, s.parent ? 1 : 0]);
  expect(listed).toEqual(generated);
  expect(listed).toEqual(subagentRows(await view.rowSummary()));
  await expect(roster.toggle).toHaveText('Subagents · 43');
  // A row: type, description, status, duration, tokens, model and summary.
  await expect(roster.item('sa3').getByTestId('roster-status')).toHaveText('failed');
  await expect(roster.item('sa2').locator('.type-chip')).toHaveText('code-reviewer');
  await expect(roster.item('sa2').locator('.description')).toHaveText('part 2 of the codebase');
  await expect(roster.item('sa2').locator('.roster-figures')).toHaveText(/^1m 02s · 11k tokens · claude-opus-4-8$/);
  await expect(roster.item('sa2').locator('.roster-summary')).toHaveText('Verdict for part 2');
});

test('the roster filters running and failed subagents and sorts by tokens', async ({ page, app }) => {
  await pushFanOut(page, app);
  const roster = new Roster(page);
  await roster.filter('running').click();
  const running = FAN_OUT.subagents.filter((s) => s.status === 'running').map((s) => s.id);
  await expect.poll(() => roster.count()).toBe(running.length);
  expect((await roster.listed()).map(([id]) => id)).toEqual(running);
  await expect(roster.filter('running')).toHaveAttribute('aria-pressed', 'true');
  for (const id of running) await expect(roster.item(id)).toHaveAttribute('data-status', 'running');

  await roster.filter('failed').click();
  const failed = FAN_OUT.subagents.filter((s) => s.status === 'failed').map((s) => s.id);
  await expect.poll(() => roster.count()).toBe(failed.length);
  await expect(roster.filter('failed')).toHaveText(`failed · ${failed.length}`);

  await roster.filter('all').click();
  await roster.sort.selectOption('tokens');
  const byTokens = FAN_OUT.subagents.filter((s) => !s.parent)
    .sort((a, b) => (b.tokens ?? -1) - (a.tokens ?? -1) || a.id.localeCompare(b.id, 'en', { numeric: true }))
    .map((s) => s.id);
  await eventually(async () => {
    const top = (await roster.listed()).filter(([, depth]) => depth === 0).map(([id]) => id);
    return JSON.stringify(top) === JSON.stringify(byTokens);
  }, 'top-level subagents by tokens, most first, unknown last');
});

test('roster rows appear and settle live as the session streams', async ({ page, app }) => {
  const view = await pushFanOut(page, app);
  const roster = new Roster(page);
  await expect.poll(() => roster.count()).toBe(43);
  await expect(roster.filter('running')).toHaveText('running · 4');
  const late = structuredClone(FAN_OUT.messages.find((m) => m.id === 'sa4'));
  Object.assign(late, { id: 'sa-late', created_at: '2026-08-03T10:10:00.000Z', updated_at: '2026-08-03T10:10:00.000Z' });
  Object.assign(late.metadata, { tool_call_id: 'tc-sa-late', title: 'Late reviewer' });
  late.metadata.normalized.subagent_task.description = 'a late part';
  await view.append([late]);
  await expect.poll(() => roster.count()).toBe(44);
  await expect(await roster.reveal('sa-late')).toHaveAttribute('data-status', 'running');
  await expect(roster.toggle).toHaveText('Subagents · 44');
  await expect(roster.filter('running')).toHaveText('running · 5');
  const settled = structuredClone(late);
  settled.updated_at = '2026-08-03T10:11:00.000Z';
  settled.metadata.status = 'complete';
  Object.assign(settled.metadata.normalized.subagent_task, { status: 'completed', result_text: 'Verdict for the late part',
    duration_ms: 60000, total_tokens: 777, model: 'claude-opus-4-8' });
  await view.append([settled]);
  await expect(roster.item('sa-late')).toHaveAttribute('data-status', 'complete');
  await expect(roster.filter('running')).toHaveText('running · 4');
  await expect.poll(() => roster.count()).toBe(44);
});

test('a still file\'s roster lists no subagent running: its unsettled ones read interrupted, under all', async ({ page, app, serveFile }) => {
  await openFanOut(page, app, serveFile);
  const roster = new Roster(page);
  await expect.poll(() => roster.count()).toBe(43);
  const unsettled = FAN_OUT.subagents.filter((s) => s.status === 'running').map((s) => s.id);
  expect(unsettled.length, 'the fan-out leaves subagents unsettled').toBeGreaterThan(0);
  for (const id of unsettled) {
    const item = await roster.reveal(id);
    await expect(item.getByTestId('roster-status'), id).toHaveText('interrupted · no result recorded');
  }
  await expect(roster.filter('running')).toHaveText('running · 0');
  await expect(roster.filter('all')).toHaveText('all · 43');
  await roster.filter('running').click();
  await expect.poll(() => roster.count()).toBe(0);
  await expect(roster.panel).toContainText('No subagent is running');
  await roster.filter('all').click();
  await expect.poll(() => roster.count()).toBe(43);
});

test('choosing a subagent far down scrolls to its card and opens it', async ({ page, app, serveFile }) => {
  const view = await openFanOut(page, app, serveFile);
  const roster = new Roster(page);
  await (await roster.reveal('sa37')).getByRole('link').click();
  await expect(view.message('sa37')).toBeInViewport();
  await expect(view.card('sa37').head).toHaveAttribute('aria-expanded', 'true');
  expect(new URL(page.url()).hash).toBe('#msg-sa37');
  // A nested one: its parent opens too.
  await (await roster.reveal('nested2')).getByRole('link').click();
  await expect(view.message('nested2')).toBeInViewport();
  await expect(view.card('sa31').head).toHaveAttribute('aria-expanded', 'true');
});

test('search finds a child of a nested subagent off screen, opens its cards, scrolls to it and highlights it', async ({ page, app, serveFile }) => {
  const view = await openFanOut(page, app, serveFile);
  const target = firstChildOf('nested1');
  const search = new Search(page);
  await search.find(`needle nested1 ${target.id.slice(1)}:`);
  await expect(search.count).toHaveText('1 of 1');
  await expect(view.message(target.id)).toBeInViewport();
  await expect(view.message(target.id)).toHaveAttribute('data-search-hit', 'true');
  await expect(view.card('sa18').head).toHaveAttribute('aria-expanded', 'true');
  await expect(view.card('nested1').head).toHaveAttribute('aria-expanded', 'true');
  // Every child of every subagent is searched, collapsed or not rendered.
  await search.box.fill('Read src/part');
  await expect(search.count).toHaveText(`${2000 - 44} matches`);
});

test('search opens a collapsed turn group, and Enter / Shift+Enter move through the matches', async ({ page, app, serveFile }) => {
  const view = await TranscriptPage.openFile(page, app, serveFile('tests/fixtures/session-review-wave.json'));
  await view.subagentCards.first().waitFor();
  const search = new Search(page);
  await page.keyboard.press('/');
  await expect(search.box).toBeFocused();
  await page.keyboard.type('captureCursor');
  await expect(search.count).toHaveText(/^\d+ matches$/);
  const total = Number((await search.count.textContent()).split(' ')[0]);
  await page.keyboard.press('Enter');
  await expect(search.count).toHaveText(`1 of ${total}`);
  const group = view.groups.filter({ has: search.current() });
  await expect(group.locator('.group-head')).toHaveAttribute('aria-expanded', 'true');
  await expect(search.current()).toBeInViewport();
  await page.keyboard.press('Shift+Enter');
  await expect(search.count).toHaveText(`${total} of ${total}`);
  await expect(search.current()).toHaveCount(1);
  await page.keyboard.press('Enter');
  await expect(search.count).toHaveText(`1 of ${total}`);
});

test('keyboard only: the roster opens, filters and shows a card; names for screen readers', async ({ page, app }) => {
  const view = await pushFanOut(page, app);
  await expect(page.getByRole('search').getByRole('searchbox', { name: 'Search this transcript' })).toBeVisible();
  const toggle = page.getByRole('button', { name: 'Subagents · 43' });
  await expect(toggle).toHaveAttribute('aria-expanded', 'true');
  await toggle.focus();
  await page.keyboard.press('Enter');
  await expect(toggle).toHaveAttribute('aria-expanded', 'false');
  await page.keyboard.press('Enter');
  const panel = page.getByRole('complementary', { name: /Subagents/ });
  await expect(panel).toBeVisible();
  const running = panel.getByRole('button', { name: 'running · 4' });
  await running.focus();
  await page.keyboard.press('Enter');
  await expect(running).toHaveAttribute('aria-pressed', 'true');
  const link = panel.getByRole('link', { name: /^researcher: part 13 of the codebase, running,/ });
  await link.focus();
  await page.keyboard.press('Enter');
  await expect(view.message('sa13')).toBeInViewport();
  await expect(view.card('sa13').head).toHaveAttribute('aria-expanded', 'true');
  await panel.getByRole('button', { name: 'running · 4' }).focus();
  await page.keyboard.press('Escape');
  await expect(panel).toBeHidden();
});

test.describe('at phone width', () => {
  test.use({ viewport: { width: 390, height: 800 } });

  test('the roster is a sheet opened by its toggle that closes on a choice', async ({ page, app, serveFile }) => {
    const view = await openFanOut(page, app, serveFile);
    const roster = new Roster(page);
    await expect(roster.panel).toBeHidden();
    await roster.toggle.click();
    await expect(roster.panel).toBeVisible();
    expect(await roster.panel.evaluate((el) => getComputedStyle(el).position)).toBe('fixed');
    await (await roster.reveal('sa20')).getByRole('link').click();
    await expect(roster.panel).toBeHidden();
    await expect(view.message('sa20')).toBeInViewport();
  });

  test('the board chip\'s drill-down is a sheet wholly on screen, not clipped by the sideways board', async ({ page, app }) => {
    const board = await BoardPage.open(page, app);
    // The demo's seed-patterns task keeps a fork running, so its chip stays.
    await board.card('task-demo-seeds').subagentChip.click();
    const popover = new ChipPopover(page);
    await expect(popover.items.first()).toBeVisible();
    const box = await popover.root.boundingBox();
    expect(box.x).toBeGreaterThanOrEqual(0);
    expect(box.x + box.width).toBeLessThanOrEqual(390);
    // What is drawn at the popover's left edge is the popover, not what clips it.
    const hit = await popover.root.evaluate((root, { x, y }) => root.contains(document.elementFromPoint(x, y)),
      { x: box.x + 12, y: box.y + 12 });
    expect(hit).toBe(true);
  });
});

test('a running subagent turns stalled after 5 minutes on the page clock, and its next child clears it', async ({ page, app }) => {
  const at = (m, s) => `2026-08-03T10:${String(m).padStart(2, '0')}:${String(s).padStart(2, '0')}.000Z`;
  const running = {
    id: 'bg', type: 'tool_call', content: 'Task', created_at: at(0, 0), updated_at: at(0, 0),
    metadata: { tool_call_id: 'tc-bg', title: 'Task', status: 'running', normalized: { kind: 'subagent_task',
      subagent_task: { subagent_type: 'researcher', description: 'prior art', status: 'async_launched', is_async: true } } },
  };
  const child = (id, time) => ({ id, type: 'tool_read', content: `Read ${id}.rs`, created_at: time, updated_at: time,
    metadata: { tool_call_id: `tc-${id}`, parent_tool_call_id: 'tc-bg', title: `Read ${id}.rs`, status: 'complete' } });
  await page.clock.install({ time: new Date(at(30, 0)) });
  // Pushed by the host page, a live source: its clock is the page's (docs/behaviour.md §8).
  const view = await TranscriptPage.openPushed(page, app, [running, child('c1', at(0, 5))]);
  const status = view.message('bg').locator(':scope > .card-head [data-testid="subagent-status"]');
  await expect(status).toHaveText('background · running');
  await page.clock.fastForward('04:50');
  await expect(status).toHaveText('background · running');
  await page.clock.fastForward('00:20');
  await expect(status).toHaveText('background · stalled');
  await expect(status).toHaveAttribute('data-state', 'stalled');
  await expect(status).toHaveAttribute('title', /^no new child or update for 5m 1\ds$/);
  const roster = new Roster(page);
  await expect(roster.item('bg').getByTestId('roster-status')).toHaveText('background · stalled');
  await view.append([child('c2', at(5, 20))]);
  await expect(status).toHaveText('background · running');
});

test('the demo board\'s chip opens its running subagents, live, each a link to its card; Escape closes it', async ({ page, app }) => {
  const board = await BoardPage.open(page, app);
  // A card with a chip, read in one step: a chip found first may be gone (its count at zero)
  // by the time its card is looked up. Not the seed-patterns task: its fork runs for good,
  // so its drill-down never changes.
  const chipped = page.locator('[data-testid="task-card"]:not([data-task-id="task-demo-seeds"])')
    .filter({ has: page.getByRole('button', { name: /^\d+ subagents? running$/ }) }).first();
  await chipped.waitFor({ timeout: 30000 });
  const taskId = await chipped.getAttribute('data-task-id');
  // This task's chip, not whichever chip comes first once this one has gone.
  const card = board.card(taskId);
  const chip = card.subagentChip;
  // Keyboard: Enter on the chip opens the drill-down and moves focus into it.
  await chip.focus();
  await page.keyboard.press('Enter');
  const popover = new ChipPopover(page);
  await expect(page.getByRole('dialog', { name: /running$/ })).toBeVisible();
  await expect(chip).toHaveAttribute('aria-expanded', 'true');
  await expect(popover.root).toBeFocused();
  // It follows the session: the list changes as the waves run and settle.
  const first = await eventually(async () => {
    const ids = await popover.ids();
    return ids.length > 0 && ids;
  }, 'a running subagent in the drill-down');
  const href = await popover.items.first().getByRole('link').getAttribute('href');
  expect(href).toMatch(new RegExp(`^/task/${taskId}#msg-`));
  await expect(popover.items.first()).toContainText(/\d(ms|\.\d+s|m \d\ds)/);
  await eventually(async () => JSON.stringify(await popover.ids()) !== JSON.stringify(first),
    'the drill-down to change as subagents start and settle', { timeoutMs: 60000, everyMs: 100 });
  await page.keyboard.press('Escape');
  await expect(popover.root).toBeHidden();
  // Focus returns to the chip, or to the card's link when the chip went at zero
  // (docs/behaviour.md §5).
  const focused = card.root.locator(':focus');
  await expect(focused).toHaveCount(1);
  expect(await focused.evaluate((el) => el.matches('[data-testid="task-subagent-count"], a'))).toBe(true);
});

test('a drill-down link opens the task at its subagent\'s card', async ({ page, app }) => {
  await BoardPage.open(page, app);
  const chip = page.getByRole('button', { name: /^\d+ subagents? running$/ }).first();
  await chip.waitFor({ timeout: 30000 });
  await chip.click();
  const popover = new ChipPopover(page);
  const link = popover.items.first().getByRole('link');
  await link.waitFor();
  // The list changes live: read the link and follow it in one step, or the
  // first item may be another subagent's by the time of the click.
  const href = await link.evaluate((a) => { a.click(); return a.getAttribute('href'); });
  const id = href.split('#msg-')[1];
  await page.waitForURL(/\/task\//);
  const view = new TranscriptPage(page);
  await expect(view.message(id)).toBeInViewport();
});
