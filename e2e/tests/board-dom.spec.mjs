// Thousands of sessions on the board taskview makes (docs/board.md,
// docs/behaviour.md §5: columns virtualized): a home of 10,000 sessions
// (lib/many.mjs) keeps the page at most 600 elements, at the top of its
// columns, scrolled to the middle and the end of the longest, and with a
// filter on. A count, not a timer: the same home gives the same count.
import { test, expect } from '../lib/fixtures.mjs';
import { eventually } from '../lib/poll.mjs';
import { manySessions } from '../lib/many.mjs';
import { StateBoardPage } from '../pages/board.mjs';

const SESSIONS = 10000;
const MAX_ELEMENTS = 600;
const elements = (page) => page.evaluate(() => document.getElementsByTagName('*').length);

test.use({ viewport: { width: 1280, height: 900 } });

test('a home of 10,000 sessions keeps the board at most 600 elements, however its columns are scrolled or filtered',
  async ({ page, serve }, testInfo) => {
    test.setTimeout(600000);
    const home = manySessions(testInfo.outputPath('home'), SESSIONS, { records: 3 });
    // It lists every session before it answers: 12.5 s for these 10,000
    // here (2 cores, load 2), past serve's default 20 s under more load.
    const server = await serve(['--recordings', home.dir, '--poll-ms', '500'], { startMs: 180000 });
    await eventually(async () => {
      const { tasks } = await server.json('api/v1/workflows/wf-recordings/snapshot');
      return tasks.length === SESSIONS && tasks.every((t) => t.session_facts);
    }, 'every session on the board with its facts', { timeoutMs: 480000, everyMs: 2000 });
    const board = await StateBoardPage.open(page, server);
    await expect.poll(async () => (await board.columnsNow()).reduce((sum, [, n]) => sum + n, 0),
      { message: 'every session in a column', timeout: 60000 }).toBe(SESSIONS);
    // The longest column, thousands of cards: the home's sessions not at
    // work end mid-turn long ago (lib/many.mjs), so they are in Stopped.
    const [slug, count] = (await board.columnsNow()).reduce((a, b) => (b[1] > a[1] ? b : a));
    expect(count, `the longest column, ${slug}`).toBeGreaterThan(SESSIONS / 2);
    const longest = board.column(slug);
    await expect(longest.cards.first()).toBeVisible();
    const seen = { top: await elements(page) };
    for (const [at, f] of [['middle', 0.5], ['end', 1]]) {
      await longest.scroller.evaluate((s, f) => { s.scrollTop = (s.scrollHeight - s.clientHeight) * f; }, f);
      await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
      await expect(longest.cards.first()).toBeVisible();
      seen[at] = await elements(page);
    }
    await board.filter('project').selectOption('project-7');
    await expect(board.shown).toHaveText(`${SESSIONS / 40} of ${SESSIONS} tasks`);
    seen.filtered = await elements(page);
    testInfo.annotations.push({ type: 'elements', description: JSON.stringify(seen) });
    for (const [at, n] of Object.entries(seen)) expect(n, `elements ${at}: ${JSON.stringify(seen)}`).toBeLessThanOrEqual(MAX_ELEMENTS);
  });
