// The board taskview makes (docs/board.md, docs/behaviour.md §5) on a home
// made from the real captures of every agent (lib/home.mjs): columns by
// state with their counts, newest activity first; the strip that jumps to
// who needs you and what works; cards whose figures are the captures'; the
// filters in the URL, through a reload and the task page's `← Board`; live
// updates as a session's file grows; the embed form.
import { appendFileSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { test, expect } from '../lib/fixtures.mjs';
import { capturesHome, shiftTimes } from '../lib/home.mjs';
import { ROOT } from '../lib/files.mjs';
import { eventually } from '../lib/poll.mjs';
import { StateBoardPage } from '../pages/board.mjs';
import { TranscriptPage } from '../pages/transcript.mjs';

const SNAPSHOT = 'api/v1/workflows/wf-recordings/snapshot';
/** The column each kind of session of the home is in. */
const COLUMN = { waiting: 'needs-you', working: 'working', interrupted: 'stopped', done: 'done' };

const it = test.extend({
  // The captures home served by `taskview serve --recordings`, once every
  // session is on the board with its card's facts.
  home: async ({ serve }, use, testInfo) => {
    const dir = testInfo.outputPath('home');
    const home = capturesHome(dir);
    const server = await serve([...home.roots.flatMap((r) => ['--recordings', r]), '--poll-ms', '200']);
    const snapshot = await eventually(async () => {
      const s = await server.json(SNAPSHOT);
      return s.tasks.length >= home.sessions.length && s.tasks.every((t) => t.session_facts) && s;
    }, 'every session on the board with its facts', { timeoutMs: 60000 });
    /** The task of a session of the home. */
    const taskOf = (session) => snapshot.tasks.find((t) => t.description.startsWith(`${session.target}/`));
    await use({ ...home, server, snapshot, taskOf });
  },
});

// Tall enough that every card of the home is in the page.
it.use({ viewport: { width: 1280, height: 4200 } });

it('every session is in the column its records say, each column counted, newest activity first', async ({ page, home }) => {
  const board = await StateBoardPage.open(page, home.server);
  await expect(board.columnNames).toHaveText(['Needs you', 'Working', 'Stopped', 'Done']);
  const expected = { 'needs-you': [], working: [], stopped: [], done: [] };
  for (const session of home.sessions) {
    const task = home.taskOf(session);
    expect(task, `${session.cli}/${session.scenario}: a task`).toBeTruthy();
    expected[COLUMN[session.kind]].push(task);
  }
  const newestFirst = (a, b) => (Date.parse(b.session_facts.last_activity_at ?? 0) - Date.parse(a.session_facts.last_activity_at ?? 0))
    || (a.id < b.id ? -1 : 1);
  await eventually(async () => {
    const columns = await board.columnsNow();
    return JSON.stringify(columns) === JSON.stringify(Object.entries(expected).map(([slug, tasks]) =>
      [slug, tasks.length, [...tasks].sort(newestFirst).map((t) => t.title)]));
  }, `the columns ${JSON.stringify(await board.columnsNow())}`);
  await expect(board.column('done').count).toHaveAttribute('aria-label', `${expected.done.length} tasks`);
  // Every agent's sessions are there, named.
  const agents = new Set(home.snapshot.tasks.map((t) => t.session_facts.agent));
  for (const agent of ['Claude Code', 'Codex', 'Copilot CLI', 'Gemini CLI', 'Kimi Code', 'qwen-code', 'ACP agent']) {
    expect(agents, agent).toContain(agent);
  }
});

it('the strip says who needs you and what works, and takes the focus to their columns', async ({ page, home }) => {
  const board = await StateBoardPage.open(page, home.server);
  await expect(board.needsYou).toHaveText('1 needs you');
  await expect(board.working).toHaveText('1 working');
  await board.needsYou.click();
  await expect(board.column('needs-you').scroller).toBeFocused();
  await board.working.press('Enter');
  await expect(board.column('working').scroller).toBeFocused();
  // A state filter that hides the column shows every column again.
  await board.filter('state').selectOption('done');
  await expect(board.columns).toHaveCount(1);
  await board.working.click();
  await expect(board.columns).toHaveCount(4);
  await expect(board.column('working').scroller).toBeFocused();
  const waiting = home.taskOf(home.sessions.find((s) => s.kind === 'waiting'));
  await expect(board.card(waiting.id).status).toHaveText('waits for permission');
});

it('a card says what its capture says: agent, model, project, age, subagents, tokens and cost', async ({ page, home }) => {
  const board = await StateBoardPage.open(page, home.server);
  const wave = home.sessions.find((s) => s.cli.startsWith('claude-code') && s.scenario === 'parallel-wave');
  const card = board.card(home.taskOf(wave).id);
  // What Claude Code itself reported for this run (its result.json).
  const result = JSON.parse(readFileSync(path.join(ROOT, 'tests/fixtures/captures', wave.cli, 'parallel-wave/result.json'), 'utf8'));
  const { holds } = JSON.parse(readFileSync(path.join(ROOT, 'tests/fixtures/captures', wave.cli, 'parallel-wave/manifest.json'), 'utf8'));
  const models = Object.keys(result.modelUsage);
  await expect(card.agent).toHaveText(`Claude Code · ${models.at(-1)}`);
  await expect(card.project).toHaveText('parser-kit');
  await expect(card.subagents).toHaveText(String(holds.subagents));
  await expect(card.cost).toContainText(`≈ $${result.total_cost_usd.toFixed(2)} with subagents`);
  await expect(card.cost).toHaveAttribute('title', /Prices: genai-prices/);
  const tokens = Object.values(result.modelUsage).reduce((sum, m) =>
    sum + m.inputTokens + m.outputTokens + m.cacheReadInputTokens + m.cacheCreationInputTokens, 0);
  await expect(card.tokens).toHaveAttribute('title', new RegExp(`${tokens.toLocaleString('en-US')} with subagents`));
  await expect(card.age).toHaveText(/ago$/);
  // The working session: subagents running of all it launched.
  const working = board.card(home.taskOf(home.sessions.find((s) => s.kind === 'working')).id);
  await expect(working.subagents).toHaveText(/^\d+ of \d+$/);
  await expect(working.subagents).toHaveAttribute('aria-label', /subagents? running$/);
});

it('the filters live in the URL: a reload and the task page\'s ← Board come back to the same board', async ({ page, home }) => {
  const board = await StateBoardPage.open(page, home.server);
  await board.filter('agent').selectOption('Codex');
  await expect(page).toHaveURL(/\?agent=Codex$/);
  const codex = home.snapshot.tasks.filter((t) => t.session_facts.agent === 'Codex');
  await expect(board.taskTitles).toHaveCount(codex.length);
  await expect(board.shown).toHaveText(`${codex.length} of ${home.snapshot.tasks.length} tasks`);
  await board.text.fill('wave');
  await board.text.press('Enter');
  await expect(page).toHaveURL(/\?agent=Codex&q=wave$/);
  const shown = await board.taskTitles.allTextContents();
  expect(shown.length).toBeGreaterThan(0);
  expect(shown.length).toBeLessThan(codex.length);
  await page.reload();
  await expect(board.filter('agent')).toHaveValue('Codex');
  await expect(board.text).toHaveValue('wave');
  await expect(board.taskTitles).toHaveText(shown);
  await board.taskTitles.first().click();
  const view = new TranscriptPage(page);
  await expect(page).toHaveURL(/\/task\//);
  await view.page.getByTestId('back-to-board').click();
  await expect(page).toHaveURL(/\/board\/wf-recordings\?agent=Codex&q=wave$/);
  await expect(board.taskTitles).toHaveText(shown);
});

it('live: a record appended to a working session moves its age and figures, and the end of its turn takes it to Done',
  async ({ page, home }) => {
    const board = await StateBoardPage.open(page, home.server);
    const session = home.sessions.find((s) => s.kind === 'working');
    const task = home.taskOf(session);
    const card = board.card(task.id);
    await expect(card.root).toHaveAttribute('data-column', 'working');
    const before = { tokens: await card.tokens.getAttribute('title'), age: await card.age.getAttribute('title') };
    const { main, rest, root } = home.working;
    const mainRest = rest.get(path.relative(root, main));
    // Its next records, dated now.
    const delta = Date.now() - Date.parse(JSON.parse(mainRest[0]).timestamp);
    const next = mainRest.findIndex((l) => JSON.parse(l).message?.usage);
    appendFileSync(main, `${mainRest.slice(0, next + 1).map((l) => shiftTimes(l, delta)).join('\n')}\n`);
    await expect(card.tokens).not.toHaveAttribute('title', before.tokens);
    await expect(card.age).not.toHaveAttribute('title', before.age);
    await expect(card.root).toHaveAttribute('data-column', 'working');
    // The rest of its files: its subagents settle and its turn ends.
    for (const [rel, lines] of rest) {
      const left = rel === path.relative(root, main) ? lines.slice(next + 1) : lines;
      if (left.length) appendFileSync(path.join(root, rel), `${left.map((l) => shiftTimes(l, delta)).join('\n')}\n`);
    }
    await expect(board.column('done').root.locator(`[data-task-id="${task.id}"]`)).toBeVisible({ timeout: 20000 });
    await expect(board.working).toHaveText('0 working');
    await expect(card.subagents).toHaveAttribute('data-running', '0');
  });

it('the board embeds: /embed/board/… shows the same columns, its cards open embedded transcripts', async ({ page, home }) => {
  const board = await StateBoardPage.open(page, home.server, 'embed/board/wf-recordings');
  await expect(board.columnNames).toHaveText(['Needs you', 'Working', 'Stopped', 'Done']);
  await expect(board.needsYou).toHaveText('1 needs you');
  const href = await board.taskTitles.first().locator('xpath=ancestor::a').getAttribute('href');
  expect(href).toMatch(/^\/embed\/task\//);
});

it('the board is operable from the keyboard: strip, filters, a column, its cards, a card opened with Enter',
  async ({ page, home }) => {
    const board = await StateBoardPage.open(page, home.server);
    await board.taskTitles.first().waitFor();
    const focusedTestIds = [];
    for (let i = 0; i < 14; i++) {
      await page.keyboard.press('Tab');
      focusedTestIds.push(await page.evaluate(() => {
        const el = document.activeElement;
        return el.dataset.testid ?? el.closest('[data-testid]')?.dataset.testid ?? el.tagName;
      }));
    }
    for (const id of ['strip-needs-you', 'strip-working', 'filter-agent', 'filter-state', 'filter-text', 'task-card']) {
      expect(focusedTestIds, `${id} in the tab order`).toContain(id);
    }
    // Focus a card of Done and open it with Enter.
    const done = board.column('done');
    await done.cards.first().locator('a').focus();
    await page.keyboard.press('Enter');
    await expect(page).toHaveURL(/\/task\//);
  });

it('← Board comes back to where each column was scrolled', async ({ page, home }) => {
  await page.setViewportSize({ width: 1280, height: 640 });
  const board = await StateBoardPage.open(page, home.server);
  const done = board.column('done');
  const first = await done.cards.first().getAttribute('data-task-id');
  await done.scroller.evaluate((s) => { s.scrollTop = 5 * 136; });
  // The column took the scroll in: its window moved past its first card.
  await expect(done.cards.first()).not.toHaveAttribute('data-task-id', first);
  const top = await done.scroller.evaluate((s) => s.scrollTop);
  expect(top).toBeGreaterThan(0);
  // A card the reader sees, whole: the window's first cards are above the
  // view, and clicking one would scroll the column first.
  const id = await done.scroller.evaluate((s) => {
    const view = s.getBoundingClientRect();
    return [...s.querySelectorAll('[data-testid=task-card]')].find((c) => {
      const r = c.getBoundingClientRect();
      return r.top >= view.top && r.bottom <= view.bottom;
    })?.dataset.taskId;
  });
  expect(id).toBeTruthy();
  await board.card(id).link.click();
  await expect(page).toHaveURL(/\/task\//);
  await page.getByTestId('back-to-board').click();
  await expect(done.root.locator(`[data-task-id="${id}"]`)).toBeVisible();
  expect(await done.scroller.evaluate((s) => s.scrollTop)).toBe(top);
});
