// The live board (docs/behaviour.md §5) against `taskview serve --scenario lifecycle`:
// columns from the workflow's steps, cards, and the subagent chip moving
// 0 → 2 → 1 → 0 from `task.updated` alone, with no reload.
import { test, expect } from '../lib/fixtures.mjs';
import { eventually, markDocument, recordStates, recordedStates, sameDocument } from '../lib/poll.mjs';
import { BoardPage, taskCardState } from '../pages/board.mjs';
import { TranscriptPage } from '../pages/transcript.mjs';

const TASK = 'task-7c1e';
const TITLE = 'Harden the sync closure';
// The replay waits long enough for the page to load and start recording.
const LIFECYCLE = ['--scenario', 'lifecycle', '--once', '--interval-ms', '300', '--start-delay-ms', '6000'];

test('the board has the workflow steps as columns with task counts, and its cards', async ({ page, serve }) => {
  const server = await serve(LIFECYCLE);
  const board = await BoardPage.open(page, server, '?debug');
  await board.card(TASK).root.waitFor();
  expect(await board.columnNames.allTextContents()).toEqual(['Todo', 'In Progress', 'Review']);
  expect(await board.columnCounts.allTextContents()).toEqual(['0', '1', '0']);
  expect(await board.name.textContent()).toBe('Development');
  expect(await board.taskTitles.allTextContents()).toEqual([TITLE]);
  await board.waitConnected();
  expect(await board.connection.getAttribute('role'), 'indicator role').toBe('status');
  expect((await server.scenario()).frames, 'frames played before the checks ended').toBe(0);
});

test('the chip goes 0 → 2 → 1 → 0 live; a task.updated without the count keeps it', async ({ page, serve }) => {
  const server = await serve(LIFECYCLE);
  const board = await BoardPage.open(page, server, '?debug');
  await board.card(TASK).root.waitFor();
  await board.waitConnected();
  expect((await server.scenario()).frames, 'frames played before recording starts').toBe(0);
  await recordStates(page, taskCardState, TASK);
  await markDocument(page);
  await eventually(async () => (await server.scenario()).finished, 'the lifecycle scenario to finish');
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
  expect(states, 'card states in order').toEqual(expected);
  expect(await sameDocument(page), 'no reload').toBe(true);
});

test('a card opens its transcript in the same document', async ({ page, serve }) => {
  const server = await serve(['--scenario', 'lifecycle', '--once', '--interval-ms', '50']);
  await eventually(async () => (await server.scenario()).finished, 'the lifecycle scenario to finish');
  const board = await BoardPage.open(page, server);
  await board.card(TASK).link.waitFor();
  await markDocument(page);
  await board.card(TASK).link.click();
  await page.waitForURL(`**/task/${TASK}`);
  const task = new TranscriptPage(page);
  await task.title.filter({ hasText: TITLE }).waitFor();
  await task.subagentCards.first().waitFor();
  expect(await task.subagentCards.count(), 'subagent cards').toBe(2);
  expect(await sameDocument(page), 'client-side navigation').toBe(true);
});

test('the embedded board has no chrome and links to embedded transcripts', async ({ page, serve }) => {
  const server = await serve(LIFECYCLE);
  const board = await BoardPage.open(page, server, 'embed/board/wf-1');
  const card = board.card(TASK);
  await card.link.waitFor();
  expect(await board.header.count(), 'header in the embed').toBe(0);
  expect(await card.link.getAttribute('href')).toBe(`/embed/task/${TASK}`);
});

test('the board stays usable at phone width: columns scroll sideways', async ({ page, serve }) => {
  const server = await serve(LIFECYCLE);
  await page.setViewportSize({ width: 390, height: 800 });
  const board = await BoardPage.open(page, server);
  await board.columns.first().waitFor();
  const { scroll, client, bodyScroll, bodyClient } = await board.board.evaluate((el) => ({
    scroll: el.scrollWidth, client: el.clientWidth,
    bodyScroll: document.documentElement.scrollWidth, bodyClient: document.documentElement.clientWidth,
  }));
  expect(scroll, 'the board scrolls sideways').toBeGreaterThan(client);
  expect(bodyScroll, 'the page itself does not overflow').toBeLessThanOrEqual(bodyClient);
});
