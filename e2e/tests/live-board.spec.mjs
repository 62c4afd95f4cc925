// The live board (SPEC.md §5) against `taskview serve --scenario lifecycle`:
// columns from the workflow's steps, cards, and the subagent chip moving
// 0 → 2 → 1 → 0 from `task.updated` alone, with no reload.
import { eventually, expectEqual, expectNoErrors, recordStates, recordedStates, scenario } from '../harness.mjs';

const TASK = 'task-7c1e';
const TITLE = 'Harden the sync closure';

// One card's (title, chip) state, read in the page.
function cardState(taskId) {
  const card = document.querySelector(`[data-testid=task-card][data-task-id="${taskId}"]`);
  if (!card) return 'no card';
  const title = card.querySelector('[data-testid=task-title]')?.textContent ?? '';
  const chip = card.querySelector('[data-testid=task-subagent-count]');
  const chipText = chip
    ? `${chip.textContent}|${chip.getAttribute('aria-label')}|${chip.getAttribute('title')}|svg:${chip.querySelector('svg[aria-hidden=true]') ? 1 : 0}`
    : 'no chip';
  return `${title} :: ${chipText}`;
}

export default async function (suite) {
  // The replay waits long enough for the page to load and start recording.
  const server = await suite.server(['--scenario', 'lifecycle', '--once', '--interval-ms', '300', '--start-delay-ms', '6000']);
  const page = await suite.page();

  await suite.test('the board has the workflow steps as columns with task counts, and its cards', async () => {
    await page.goto(`${server.url}?debug`);
    await page.locator(`[data-testid=task-card][data-task-id="${TASK}"]`).waitFor({ timeout: 20000 });
    expectEqual(await page.getByTestId('column-name').allTextContents(), ['Todo', 'In Progress', 'Review'], 'columns');
    expectEqual(await page.getByTestId('column-count').allTextContents(), ['0', '1', '0'], 'counts');
    expectEqual(await page.getByTestId('board-name').textContent(), 'Development', 'board name');
    expectEqual(await page.getByTestId('task-title').allTextContents(), [TITLE], 'card titles');
    await page.getByTestId('connection-status').filter({ hasText: /^connected$/ }).waitFor();
    expectEqual(await page.getByTestId('connection-status').getAttribute('role'), 'status', 'indicator role');
    expectEqual((await scenario(server)).frames, 0, 'frames played before recording starts');
    await recordStates(page, cardState, TASK);
    await page.evaluate(() => { window.__sameDocument = true; });
  });

  await suite.test('the chip goes 0 → 2 → 1 → 0 live; a task.updated without the count keeps it', async () => {
    await eventually(async () => (await scenario(server)).finished, 'the lifecycle scenario to finish');
    const expected = [
      `${TITLE} :: no chip`,
      `${TITLE} :: 2|2 subagents running|2 subagents running|svg:1`,
      `${TITLE} (wave 1) :: 2|2 subagents running|2 subagents running|svg:1`,
      `${TITLE} :: 1|1 subagent running|1 subagent running|svg:1`,
      `${TITLE} :: no chip`,
    ];
    const states = await eventually(async () => {
      const seen = await recordedStates(page);
      return seen.length >= expected.length && seen;
    }, 'the card to pass through every state', { timeoutMs: 15000 });
    expectEqual(states, expected, 'card states in order');
    expectEqual(await page.evaluate(() => window.__sameDocument), true, 'no reload');
  });

  await suite.test('a card opens its transcript in the same document', async () => {
    await page.locator(`[data-testid=task-card][data-task-id="${TASK}"] a`).click();
    await page.waitForURL(`**/task/${TASK}`);
    await page.getByTestId('task-title').filter({ hasText: TITLE }).waitFor();
    await page.getByTestId('subagent-card').first().waitFor();
    expectEqual(await page.getByTestId('subagent-card').count(), 2, 'subagent cards');
    expectEqual(await page.evaluate(() => window.__sameDocument), true, 'client-side navigation');
  });

  await suite.test('the embedded board has no chrome and links to embedded transcripts', async () => {
    const embed = await suite.page();
    await embed.goto(`${server.url}embed/board/wf-1`);
    const link = embed.locator(`[data-testid=task-card][data-task-id="${TASK}"] a`);
    await link.waitFor({ timeout: 20000 });
    expectEqual(await embed.getByTestId('app-header').count(), 0, 'header in embed');
    expectEqual(await link.getAttribute('href'), `/embed/task/${TASK}`, 'card link');
    expectNoErrors(embed);
  });

  await suite.test('the board stays usable at phone width: columns scroll sideways', async () => {
    const phone = await suite.page({ viewport: { width: 390, height: 800 } });
    await phone.goto(server.url);
    await phone.getByTestId('board-column').first().waitFor({ timeout: 20000 });
    const { scroll, client, bodyScroll, bodyClient } = await phone.evaluate(() => {
      const board = document.querySelector('[data-testid=board]');
      return { scroll: board.scrollWidth, client: board.clientWidth,
        bodyScroll: document.documentElement.scrollWidth, bodyClient: document.documentElement.clientWidth };
    });
    if (!(scroll > client)) throw new Error(`the board does not scroll sideways (${scroll} <= ${client})`);
    expectEqual(bodyScroll <= bodyClient, true, 'the page itself does not overflow');
    expectNoErrors(phone);
  });

  await suite.test('the page logged no errors', async () => expectNoErrors(page));
}
