// Accessibility (docs/behaviour.md §10): no serious or critical axe-core violation on
// the board (with a chip's drill-down open, too), the board taskview makes on a
// home of every agent's captures, a live task page during a
// subagent wave, a file view of every row kind (cards, groups and disclosures
// opened), an embedded view, a transcript with the fan-out roster and search
// open (docs/behaviour.md §8), the subagent timeline (chart and table), a folder's
// session chooser, and a capture's records-not-shown disclosure (docs/behaviour.md §1),
// each in light and dark, at
// 1280 px and 390 px wide. axe-core is injected into the page as it stands.
import { cpSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { captures } from '../lib/captures.mjs';
import { capturesHome } from '../lib/home.mjs';
import { ROOT } from '../lib/files.mjs';
import { openEverything } from '../lib/expand.mjs';
import { test, expect } from '../lib/fixtures.mjs';
import { everyRowKind, fanOut, session } from '../lib/sessions.mjs';
import { BoardPage, StateBoardPage } from '../pages/board.mjs';
import { ChipPopover, Roster, Search } from '../pages/fanout.mjs';
import { Timeline } from '../pages/timeline.mjs';
import { TranscriptPage } from '../pages/transcript.mjs';

const AXE = createRequire(import.meta.url).resolve('axe-core/axe.min.js');
const MODES = [
  { colorScheme: 'light', width: 1280 }, { colorScheme: 'dark', width: 1280 },
  { colorScheme: 'light', width: 390 }, { colorScheme: 'dark', width: 390 },
];

// The app's Content-Security-Policy would refuse the injected axe script.
test.use({ bypassCSP: true });

/** Serious and critical violations of the page as it stands, one line per node. */
async function seriousViolations(page) {
  if (!(await page.evaluate(() => 'axe' in window))) await page.addScriptTag({ path: AXE });
  const results = await page.evaluate(() => window.axe.run(document, { resultTypes: ['violations'] }));
  return results.violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .flatMap((v) => v.nodes.map((n) => `${v.impact} ${v.id}: ${n.target.join(' ')} — ${n.failureSummary
      .replace(/\s+/g, ' ').slice(0, 240)}`));
}

/**
 * Runs axe in every mode (`prepare(page)` again after a resize: a phone
 * layout may hide what a wide one showed) and expects no serious or critical
 * violation in any.
 */
async function expectAccessible(page, prepare = async () => {}) {
  const found = [];
  for (const { colorScheme, width } of MODES) {
    await page.emulateMedia({ colorScheme });
    await page.setViewportSize({ width, height: 800 });
    await prepare(page);
    await page.evaluate(() => new Promise((r) => { requestAnimationFrame(() => requestAnimationFrame(r)); }));
    found.push(...(await seriousViolations(page)).map((v) => `${colorScheme} ${width}px: ${v}`));
  }
  expect(found, 'serious or critical axe-core violations').toEqual([]);
}

test('the board has no serious or critical axe violation, light or dark, wide or phone', async ({ page, app }) => {
  const board = await BoardPage.open(page, app);
  await page.getByTestId('task-card').first().waitFor();
  await board.waitConnected();
  await expectAccessible(page);
});

test('the board taskview makes, on a home of every agent\'s captures, has no serious or critical axe violation',
  async ({ page, serve }, testInfo) => {
    const dir = testInfo.outputPath('home');
    const home = capturesHome(dir);
    const server = await serve([...home.roots.flatMap((r) => ['--recordings', r]), '--poll-ms', '200']);
    const board = await StateBoardPage.open(page, server);
    await expect(board.column('done').count).toHaveText(String(home.sessions.filter((s) => s.kind === 'done').length),
      { timeout: 60000 });
    await expect(board.needsYou).toHaveText('1 needs you');
    await expectAccessible(page, async () => {
      await board.column('working').cards.first().waitFor();
    });
  });

test('the board with a chip\'s drill-down open has no serious or critical axe violation', async ({ page, app }) => {
  const board = await BoardPage.open(page, app);
  // The demo's seed-patterns task keeps a fork running, so its chip stays.
  const chip = board.card('task-demo-seeds').subagentChip;
  await chip.waitFor({ timeout: 30000 });
  const popover = new ChipPopover(page).root;
  await expectAccessible(page, async () => {
    if (!(await popover.isVisible())) await chip.click();
    await expect(popover).toBeVisible();
    await expect(popover).not.toContainText('Loading…');
  });
});

test('a live task page during a subagent wave has no serious or critical axe violation', async ({ page, app }) => {
  await BoardPage.open(page, app);
  const chipped = page.getByTestId('task-card')
    .filter({ has: page.getByRole('button', { name: /^\d+ subagents? running$/ }) }).first();
  await chipped.waitFor({ timeout: 30000 });
  const taskId = await chipped.getAttribute('data-task-id');
  const view = await TranscriptPage.openTask(page, app, taskId);
  await view.subagentCards.first().waitFor();
  await view.waitConnected();
  await expectAccessible(page);
});

test('a file view of every row kind, cards, groups and disclosures open, has no serious or critical axe violation',
  async ({ page, app, serveFile }) => {
    const messages = ['plain text', '**bold** and `code`', 'exit 1'].flatMap((v, i) => everyRowKind(i, v));
    const src = serveFile({ name: 'every-kind.json', text: JSON.stringify(messages) });
    const view = await TranscriptPage.openFile(page, app, src);
    await view.subagentCards.first().waitFor();
    await view.orphanCards.first().waitFor();
    await expectAccessible(page, openEverything);
  });

test('an embedded view has no serious or critical axe violation', async ({ page, app, serveFile }) => {
  const view = await TranscriptPage.openFile(page, app, serveFile('tests/fixtures/session-review-wave.json'),
    { embed: true });
  await view.subagentCards.nth(1).waitFor();
  await expectAccessible(page, openEverything);
});

test('the fan-out roster and search, open, have no serious or critical axe violation',
  async ({ page, app, serveFile }) => {
    const src = serveFile({ name: 'fan-out.json', text: JSON.stringify(fanOut(600).messages) });
    const view = await TranscriptPage.openFile(page, app, src);
    await view.subagentCards.first().waitFor();
    const search = new Search(page);
    await search.find('needle sa2');
    await expect(search.count).toHaveText(/\d/);
    await expectAccessible(page, async () => { await new Roster(page).open(); });
  });

test('the subagent timeline, its chart and its table, has no serious or critical axe violation',
  async ({ page, app, serveFile }) => {
    const src = serveFile({ name: 'fan-out.json', text: JSON.stringify(fanOut(600).messages) });
    const view = await TranscriptPage.openFile(page, app, src);
    await view.subagentCards.first().waitFor();
    const timeline = new Timeline(page);
    const showing = async (table) => {
      if (!(await timeline.panel.isVisible())) await timeline.toggle.click();
      if ((await timeline.tableToggle.getAttribute('aria-pressed')) !== String(table)) await timeline.tableToggle.click();
      await (table ? timeline.table : timeline.bars.first()).waitFor();
    };
    await new Search(page).find('needle sa2');
    await expectAccessible(page, () => showing(false));
    await expectAccessible(page, () => showing(true));
  });

test('the timeline\'s packed rows, runs drawn as clusters, have no serious or critical axe violation',
  async ({ page, app, serveFile }) => {
    const src = serveFile({ name: 'serial.json', text: JSON.stringify({ messages: session(2000) }) });
    const view = await TranscriptPage.openFile(page, app, src);
    await view.subagentCards.first().waitFor();
    const timeline = new Timeline(page);
    await expectAccessible(page, async () => {
      if (!(await timeline.panel.isVisible())) await timeline.toggle.click();
      if ((await timeline.pack.getAttribute('aria-pressed')) !== 'true') await timeline.pack.click();
      await timeline.clusters.first().waitFor();
    });
  });

test('a folder\'s session chooser has no serious or critical axe violation, and the file view one h1',
  async ({ page, app }, testInfo) => {
    const real = path.join(ROOT, 'tests/fixtures/real/claude-code-log');
    const dir = testInfo.outputPath('projects');
    cpSync(path.join(real, 'minimal_showcase'), path.join(dir, '-showcase'), { recursive: true });
    cpSync(path.join(real, 'workflow_scriptpath'), path.join(dir, '-repo'), { recursive: true });
    const view = await new TranscriptPage(page).goto('view', app);
    await view.folderInput.setInputFiles(dir);
    await expect(page.getByTestId('session-choice')).toHaveCount(2);
    await expect(page.getByRole('heading', { level: 1 })).toHaveCount(1);
    await expectAccessible(page);
  });

test('a capture of today\'s Claude Code with its records-not-shown disclosure open has no serious or critical axe violation',
  async ({ page, app }) => {
    const capture = captures('claude-code-2.1.332').find((c) => c.name === 'parallel-wave');
    const view = await new TranscriptPage(page).goto('view', app);
    await view.folderInput.setInputFiles(capture.project);
    await expect(view.notShown).toBeVisible({ timeout: 20000 });
    await expectAccessible(page, async () => {
      if ((await view.notShown.getAttribute('open')) === null) await view.notShown.locator('summary').click();
      await expect(view.notShown.getByRole('region')).toBeVisible();
    });
  });

test('the transcript scrolls from the keyboard: a named region in the tab order, its focus ring visible',
  async ({ page, app, serveFile }) => {
    const src = serveFile({ name: 'fan-out.json', text: JSON.stringify(fanOut(600).messages) });
    const view = await TranscriptPage.openFile(page, app, src);
    await view.subagentCards.first().waitFor();
    const region = page.getByRole('region', { name: 'Transcript' });
    await expect(region).toHaveAttribute('tabindex', '0');
    await expect(region.getByRole('feed', { name: 'Messages' }).getByRole('article').first()).toBeVisible();
    // Tab from the last control before it (the timeline toggle) lands on it.
    await page.getByTestId('timeline-toggle').focus();
    await page.keyboard.press('Tab');
    await expect(region).toBeFocused();
    const outline = await region.evaluate((el) => getComputedStyle(el).outlineStyle);
    expect(outline, 'a visible focus ring').toBe('solid');
    const before = await region.evaluate((el) => el.scrollTop);
    await page.keyboard.press('PageDown');
    await expect.poll(() => region.evaluate((el) => el.scrollTop)).toBeGreaterThan(before);
  });

test('spinners stand still when the reader prefers reduced motion', async ({ page, app }) => {
  // Pushed by the host page, a live source: its running subagents spin (a
  // file opened is still, and none of its runs spins, docs/behaviour.md §8).
  const view = await TranscriptPage.openPushed(page, app, fanOut(600).messages);
  await view.subagentCards.first().waitFor();
  const spinner = page.locator('.spinner').first();
  await spinner.waitFor();
  expect(await spinner.evaluate((el) => getComputedStyle(el).animationName)).toBe('spin');
  await page.emulateMedia({ reducedMotion: 'reduce' });
  expect(await spinner.evaluate((el) => getComputedStyle(el).animationName)).toBe('none');
});
