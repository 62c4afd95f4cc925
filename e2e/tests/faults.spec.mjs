// Faults (SPEC.md §7, §8): a socket the server drops every N frames, a
// server that goes away and comes back, and malformed frames. The view ends
// in the state of a fault-free run, stays usable, and never logs errors of
// its own.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { eventually, expectEqual, expectNoErrors, freePort, rowSummary, sameRows, scenario } from '../harness.mjs';

/** Errors the browser itself logs for a refused connection (not the app's). */
const NETWORK_ERROR = /WebSocket connection to .* failed|Failed to load resource|ERR_CONNECTION_REFUSED/;

/** A kandev message list: a user prompt, two tool calls and a reply per turn. */
function recording(count) {
  const messages = [];
  for (let n = 1; n <= count; n++) {
    const id = `m${String(n).padStart(2, '0')}`;
    const turn = `turn-${Math.ceil(n / 5)}`;
    const at = new Date(Date.UTC(2026, 7, 3, 10, 0, n)).toISOString();
    const base = { id, turn_id: turn, created_at: at, updated_at: at };
    switch (n % 5) {
      case 1: messages.push({ ...base, author_type: 'user', type: 'message', content: `Prompt ${n}` }); break;
      case 2: case 3:
        messages.push({ ...base, author_type: 'agent', type: 'tool_execute', content: `run ${n}`,
          metadata: { tool_call_id: `tc-${n}`, title: `step ${n}`, status: 'complete' } });
        break;
      default: messages.push({ ...base, author_type: 'agent', type: 'message', content: `Reply ${n}` });
    }
  }
  return JSON.stringify({ messages, total: messages.length, has_more: false });
}

export default async function (suite) {
  await suite.test('a 2,000-message stream over a socket dropped every 150 frames ends as a fault-free run', async () => {
    const stream = ['--scenario', 'stream', '--messages', '2000', '--seed', '5', '--interval-ms', '2', '--start-delay-ms', '4000'];
    const [clean, faulty] = await Promise.all([suite.server(stream), suite.server([...stream, '--drop-ws-every', '150'])]);
    const [a, b] = await Promise.all([suite.page(), suite.page()]);
    await Promise.all([a.goto(`${clean.url}task/task-stream?debug`), b.goto(`${faulty.url}task/task-stream?debug`)]);
    for (const page of [a, b]) {
      await page.getByTestId('connection-status').filter({ hasText: /^connected$/ }).waitFor({ timeout: 20000 });
    }
    await eventually(async () => (await scenario(clean)).finished && (await scenario(faulty)).finished,
      'both streams to finish', { timeoutMs: 180000, everyMs: 1000 });
    const rows = await sameRows(a, b, 'rows with and without faults', { timeoutMs: 120000, everyMs: 1000 });
    const loaded = await suite.page();
    await loaded.goto(`${clean.url}task/task-stream?debug`);
    await sameRows(a, loaded, 'streamed rows and the session loaded at once', { timeoutMs: 120000, everyMs: 1000 });
    if (!rows.some((r) => r.startsWith('stream-end '))) throw new Error('stream-end is missing');
    const ids = rows.map((r) => r.trim().split(' ')[0]);
    expectEqual(new Set(ids).size, ids.length, 'distinct row ids');
    const domIds = await b.evaluate(() => [...document.querySelectorAll('[id^="msg-"]')].map((e) => e.id));
    expectEqual(new Set(domIds).size, domIds.length, 'distinct row anchors in the DOM');
    expectEqual(await a.evaluate(() => window.__taskview.opens()), 1, 'sockets opened without faults');
    const reopened = await b.evaluate(() => window.__taskview.opens());
    if (reopened < 5) throw new Error(`the faulty socket opened only ${reopened} times`);
    for (const page of [a, b, loaded]) expectNoErrors(page);
  });

  await suite.test('with the server gone the indicator says so and the page stays usable; back, it catches up', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'taskview-e2e-'));
    const file = path.join(dir, 'notes.json');
    writeFileSync(file, recording(30));
    const flags = ['--recordings', dir];
    const first = await suite.server(flags);
    const page = await suite.page();
    await page.goto(`${first.url}task/rec-notes-json?debug`);
    await page.getByTestId('connection-status').filter({ hasText: /^connected$/ }).waitFor({ timeout: 20000 });
    await eventually(async () => (await rowSummary(page)).some((r) => r.startsWith('m30 ')), 'the first 30 messages');
    const before = await rowSummary(page);

    await first.stop();
    await page.getByTestId('connection-status').filter({ hasText: /^(reconnecting in \d+ s|offline)$/ }).waitFor({ timeout: 15000 });
    await page.getByTestId('connection-retry').waitFor();
    expectEqual(await rowSummary(page), before, 'rows kept while offline');
    const group = page.getByTestId('turn-group').first().locator('button').first();
    await group.click();
    expectEqual(await group.getAttribute('aria-expanded'), 'true', 'a group still opens offline');

    writeFileSync(file, recording(35));
    const second = await suite.server(flags, first.port);
    await page.getByTestId('connection-status').filter({ hasText: /^connected$/ }).waitFor({ timeout: 60000 });
    await eventually(async () => (await rowSummary(page)).some((r) => r.startsWith('m35 ')), 'the new messages');
    const loaded = await suite.page();
    await loaded.goto(`${second.url}task/rec-notes-json?debug`);
    await sameRows(page, loaded, 'caught-up rows and a fresh load', { timeoutMs: 30000 });
    const own = page.errors.filter((e) => !NETWORK_ERROR.test(e));
    expectEqual(own, [], 'errors other than the browser reporting refused connections');
    if (page.errors.length > 12) throw new Error(`too many connection errors: ${page.errors.length}`);
    expectNoErrors(loaded);
  });

  await suite.test('a board whose backend (?api=) is down at first appears when the backend starts', async () => {
    const app = await suite.server([]);
    const port = await freePort();
    const api = `http://127.0.0.1:${port}`;
    const page = await suite.page();
    await page.goto(`${app.url}?api=${encodeURIComponent(api)}`);
    await page.getByTestId('empty-state').filter({ hasText: 'No board data reachable yet' }).waitFor({ timeout: 20000 });
    await page.getByTestId('connection-status').filter({ hasText: /^(reconnecting in \d+ s|offline)$/ }).waitFor({ timeout: 15000 });
    await suite.server(['--scenario', 'lifecycle', '--once', '--start-delay-ms', '600000'], port);
    const link = page.locator('[data-testid=task-card][data-task-id="task-7c1e"] a');
    await link.waitFor({ timeout: 60000 });
    expectEqual(await link.getAttribute('href'), `/task/task-7c1e?api=${encodeURIComponent(api)}`, 'links keep ?api=');
    await page.getByTestId('connection-status').filter({ hasText: /^connected$/ }).waitFor();
    const own = page.errors.filter((e) => !NETWORK_ERROR.test(e));
    expectEqual(own, [], 'errors other than the browser reporting refused connections');
  });

  await suite.test('malformed frames are counted, logged once per kind, and never break the view', async () => {
    const server = await suite.server(['--scenario', 'lifecycle', '--once', '--interval-ms', '150',
      '--start-delay-ms', '3000', '--inject-malformed-every', '1']);
    const board = await suite.page();
    const warnings = [];
    board.on('console', (m) => { if (m.type() === 'warning' && m.text().startsWith('taskview: ignored a frame')) warnings.push(m.text()); });
    await board.goto(`${server.url}?debug`);
    const card = board.locator('[data-testid=task-card][data-task-id="task-7c1e"]');
    await card.waitFor({ timeout: 20000 });
    await card.getByTestId('task-subagent-count').filter({ hasText: '2' }).waitFor({ timeout: 20000 });
    await eventually(async () => (await scenario(server)).finished, 'the lifecycle scenario to finish');
    await eventually(async () => (await card.getByTestId('task-subagent-count').count()) === 0, 'the chip to go');
    const issues = await board.evaluate(() => window.__taskview.frameIssues());
    expectEqual(Object.keys(issues).sort(), [
      'invalid frame',
      'malformed session.message.updated payload',
      'malformed session.turn.started payload',
      'malformed task.deleted payload',
      'malformed task.updated payload',
      'unknown action "taskview.bogus"',
    ], 'kinds counted');
    for (const [kind, count] of Object.entries(issues)) {
      if (count < 2) throw new Error(`${kind} was counted ${count} times; the test needs repeats`);
      expectEqual(warnings.filter((w) => w.includes(kind)).length, 1, `warnings for ${kind}`);
    }
    expectEqual(warnings.length, Object.keys(issues).length, 'one warning per kind');

    const transcript = await suite.page();
    await transcript.goto(`${server.url}task/task-7c1e`);
    await transcript.getByTestId('subagent-card').first().waitFor({ timeout: 20000 });
    expectEqual(await transcript.getByTestId('subagent-card').count(), 2, 'cards with malformed frames around');
    expectNoErrors(board);
    expectNoErrors(transcript);
  });
}
