// Live transcripts (docs/behaviour.md §3.4, §7): a session streams in over the
// WebSocket and ends with exactly the rows of loading the finished session
// at once; subagent cards spin and stay open while running, then collapse.
import { test, expect } from '../lib/fixtures.mjs';
import { eventually, recordStates, recordedStates } from '../lib/poll.mjs';
import { TranscriptPage } from '../pages/transcript.mjs';

/**
 * The subagent cards' state (id, status, whether the spinner shows and
 * whether the card is open) and the task's chip, as one line, read in the page.
 */
function cardsState() {
  return [...document.querySelectorAll('[data-testid=subagent-card]')].map((card) => {
    const head = card.querySelector(':scope > .card-head');
    const spinner = card.querySelector(':scope > .card-head .spinner') ? 'spinner' : 'still';
    return `${card.id}:${card.dataset.status}:${spinner}:${head?.getAttribute('aria-expanded') ?? 'plain'}`;
  }).concat(`chip=${document.querySelector('[data-testid=task-subagent-count]')?.getAttribute('aria-label') ?? 'none'}`).join(' ');
}

test('a streamed subagent wave spins, collapses when settled, and ends as loading it at once', async ({ page, openPage, serve }) => {
  const server = await serve(['--scenario', 'lifecycle', '--once', '--interval-ms', '300', '--start-delay-ms', '6000']);
  const streamed = await TranscriptPage.openTask(page, server, 'task-7c1e');
  await streamed.waitConnected();
  await streamed.title.filter({ hasText: 'Harden the sync closure' }).waitFor();
  expect((await server.scenario()).frames, 'frames played before recording starts').toBe(0);
  await recordStates(page, cardsState);
  await eventually(async () => (await server.scenario()).finished, 'the lifecycle scenario to finish');
  const final = 'msg-w-A:complete:still:false msg-w-B:complete:still:false chip=none';
  const states = await eventually(async () => {
    const seen = await recordedStates(page);
    return seen[seen.length - 1] === final && seen;
  }, 'both cards to settle and collapse', { timeoutMs: 15000 });
  const runningOpen = states.filter((s) => /msg-w-A:running:spinner:true/.test(s) && /msg-w-B:running:spinner:true/.test(s));
  expect(runningOpen, 'states where both cards ran open').not.toEqual([]);
  expect(states.some((s) => /msg-w-A:running:spinner:true msg-w-B:complete:still:false/.test(s)),
    `B settled while A ran: ${JSON.stringify(states)}`).toBe(true);
  // The task's chip in the page header reads the same store as the cards.
  expect(runningOpen.some((s) => s.endsWith('chip=2 subagents running')),
    `the chip said 2 while both cards ran: ${JSON.stringify(states)}`).toBe(true);
  expect(states.some((s) => /msg-w-A:running:spinner:true msg-w-B:complete:still:false chip=1 subagent running/.test(s)),
    `the chip said 1 while only A ran: ${JSON.stringify(states)}`).toBe(true);

  const loaded = await TranscriptPage.openTask(await openPage(), server, 'task-7c1e');
  await loaded.subagentCards.first().waitFor();
  await streamed.sameRowsAs(loaded, 'streamed and loaded rows');
  await eventually(async () => (await streamed.scroller.innerText()) === (await loaded.scroller.innerText()),
    'the same rendered transcript');
});

test('a streamed session of 300 messages with review waves ends as loading it at once', async ({ page, openPage, serve }) => {
  const server = await serve(['--scenario', 'stream', '--messages', '300', '--seed', '3',
    '--interval-ms', '5', '--start-delay-ms', '3000']);
  const streamed = await TranscriptPage.openTask(page, server, 'task-stream');
  await streamed.waitConnected();
  await eventually(async () => (await server.scenario()).finished, 'the stream to finish', { timeoutMs: 90000 });
  const loaded = await TranscriptPage.openTask(await openPage(), server, 'task-stream');
  const rows = await streamed.sameRowsAs(loaded, 'streamed and loaded rows');
  expect(rows.some((r) => r.startsWith('stream-end ')), 'stream-end is shown').toBe(true);
  expect(rows.some((r) => / subagent: /.test(r)), 'a subagent card in the stream').toBe(true);
  const ids = rows.map((r) => r.trim().split(' ')[0]);
  expect(new Set(ids).size, 'distinct row ids').toBe(ids.length);
});
