// Live transcripts (SPEC.md §3.4, §7): a session streams in over the
// WebSocket and ends with exactly the rows of loading the finished session
// at once; subagent cards spin and stay open while running, then collapse.
import { eventually, expectEqual, expectNoErrors, recordStates, recordedStates, sameRows, scenario } from '../harness.mjs';

// The subagent cards' state (id, status, whether the spinner shows and whether
// the card is open) and the task's chip, read in the page.
function cardsState() {
  return [...document.querySelectorAll('[data-testid=subagent-card]')].map((card) => {
    const head = card.querySelector(':scope > .card-head');
    const spinner = card.querySelector(':scope > .card-head .spinner') ? 'spinner' : 'still';
    return `${card.id}:${card.dataset.status}:${spinner}:${head?.getAttribute('aria-expanded') ?? 'plain'}`;
  }).concat(`chip=${document.querySelector('[data-testid=task-subagent-count]')?.getAttribute('aria-label') ?? 'none'}`).join(' ');
}

export default async function (suite) {
  await suite.test('a streamed subagent wave spins, collapses when settled, and ends as loading it at once', async () => {
    const server = await suite.server(['--scenario', 'lifecycle', '--once', '--interval-ms', '300', '--start-delay-ms', '6000']);
    const streamed = await suite.page();
    await streamed.goto(`${server.url}task/task-7c1e?debug`);
    await streamed.getByTestId('connection-status').filter({ hasText: /^connected$/ }).waitFor({ timeout: 20000 });
    await streamed.getByTestId('task-title').filter({ hasText: 'Harden the sync closure' }).waitFor();
    expectEqual((await scenario(server)).frames, 0, 'frames played before recording starts');
    await recordStates(streamed, cardsState);
    await eventually(async () => (await scenario(server)).finished, 'the lifecycle scenario to finish');
    const final = 'msg-w-A:complete:still:false msg-w-B:complete:still:false chip=none';
    const states = await eventually(async () => {
      const seen = await recordedStates(streamed);
      return seen[seen.length - 1] === final && seen;
    }, 'both cards to settle and collapse', { timeoutMs: 15000 });
    const runningOpen = states.filter((s) => /msg-w-A:running:spinner:true/.test(s) && /msg-w-B:running:spinner:true/.test(s));
    if (!runningOpen.length) throw new Error(`the cards never ran open together: ${JSON.stringify(states)}`);
    if (!states.some((s) => /msg-w-A:running:spinner:true msg-w-B:complete:still:false/.test(s))) {
      throw new Error(`B never settled while A ran: ${JSON.stringify(states)}`);
    }
    // The task's chip in the page header reads the same store as the cards.
    if (!runningOpen.some((s) => s.endsWith('chip=2 subagents running'))) {
      throw new Error(`the chip never said 2 while both cards ran: ${JSON.stringify(states)}`);
    }
    if (!states.some((s) => /msg-w-A:running:spinner:true msg-w-B:complete:still:false chip=1 subagent running/.test(s))) {
      throw new Error(`the chip never said 1 while only A ran: ${JSON.stringify(states)}`);
    }

    const loaded = await suite.page();
    await loaded.goto(`${server.url}task/task-7c1e?debug`);
    await loaded.getByTestId('subagent-card').first().waitFor({ timeout: 20000 });
    await sameRows(streamed, loaded, 'streamed and loaded rows');
    const text = (page) => page.getByTestId('transcript').innerText();
    await eventually(async () => (await text(streamed)) === (await text(loaded)), 'the same rendered transcript');
    expectNoErrors(streamed);
    expectNoErrors(loaded);
  });

  await suite.test('a streamed session of 300 messages with review waves ends as loading it at once', async () => {
    const server = await suite.server(['--scenario', 'stream', '--messages', '300', '--seed', '3',
      '--interval-ms', '5', '--start-delay-ms', '3000']);
    const streamed = await suite.page();
    await streamed.goto(`${server.url}task/task-stream?debug`);
    await streamed.getByTestId('connection-status').filter({ hasText: /^connected$/ }).waitFor({ timeout: 20000 });
    await eventually(async () => (await scenario(server)).finished, 'the stream to finish', { timeoutMs: 90000 });
    const loaded = await suite.page();
    await loaded.goto(`${server.url}task/task-stream?debug`);
    const rows = await sameRows(streamed, loaded, 'streamed and loaded rows');
    if (!rows.some((r) => r.startsWith('stream-end '))) throw new Error('stream-end is missing');
    if (!rows.some((r) => / subagent: /.test(r))) throw new Error('no subagent card in the stream');
    const ids = rows.map((r) => r.trim().split(' ')[0]);
    expectEqual(new Set(ids).size, ids.length, 'distinct row ids');
    expectNoErrors(streamed);
    expectNoErrors(loaded);
  });
}
