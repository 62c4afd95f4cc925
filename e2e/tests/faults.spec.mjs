// Faults (docs/behaviour.md §7, §8): a socket the server drops every N frames, a
// server that goes away and comes back, a backend that starts late, and
// malformed frames. The view ends in the state of a fault-free run, stays
// usable, and never logs errors of its own.
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { test, expect } from '../lib/fixtures.mjs';
import { freePort } from '../lib/server.mjs';
import { eventually } from '../lib/poll.mjs';
import { BoardPage } from '../pages/board.mjs';
import { TranscriptPage } from '../pages/transcript.mjs';

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

test('a 2,000-message stream over a socket dropped every 150 frames ends as a fault-free run', async ({ openPage, serve }) => {
  test.setTimeout(8 * 60 * 1000);
  // Every reconnect re-reads the session, so a slow page reconnects less often: a frame every
  // 6 ms (about 45 s of stream) leaves room for 5 opens on a loaded machine (at 2 ms, 4 were seen).
  const stream = ['--scenario', 'stream', '--messages', '2000', '--seed', '5', '--interval-ms', '6', '--start-delay-ms', '4000'];
  const [clean, faulty] = await Promise.all([serve(stream), serve([...stream, '--drop-ws-every', '150'])]);
  const [a, b] = await Promise.all([
    openPage().then((p) => TranscriptPage.openTask(p, clean, 'task-stream')),
    openPage().then((p) => TranscriptPage.openTask(p, faulty, 'task-stream')),
  ]);
  for (const view of [a, b]) await view.waitConnected();
  await eventually(async () => (await clean.scenario()).finished && (await faulty.scenario()).finished,
    'both streams to finish', { timeoutMs: 180000, everyMs: 1000 });
  const rows = await a.sameRowsAs(b, 'rows with and without faults', { timeoutMs: 120000, everyMs: 1000 });
  const loaded = await TranscriptPage.openTask(await openPage(), clean, 'task-stream');
  await a.sameRowsAs(loaded, 'streamed rows and the session loaded at once', { timeoutMs: 120000, everyMs: 1000 });
  expect(rows.some((r) => r.startsWith('stream-end ')), 'stream-end is shown').toBe(true);
  const ids = rows.map((r) => r.trim().split(' ')[0]);
  expect(new Set(ids).size, 'distinct row ids').toBe(ids.length);
  const domIds = await b.page.evaluate(() => [...document.querySelectorAll('[id^="msg-"]')].map((e) => e.id));
  expect(new Set(domIds).size, 'distinct row anchors in the DOM').toBe(domIds.length);
  expect(await a.socketOpens(), 'sockets opened without faults').toBe(1);
  expect(await b.socketOpens(), 'times the faulty socket opened').toBeGreaterThanOrEqual(5);
});

test('with the server gone the indicator says so and the page stays usable; back, it catches up', async ({ page, openPage, serve, errors }) => {
  // Under the test's output folder, which outlives the test's servers.
  const dir = test.info().outputPath('recordings');
  mkdirSync(dir, { recursive: true });
  const file = path.join(dir, 'notes.json');
  writeFileSync(file, recording(30));
  const flags = ['--recordings', dir];
  const first = await serve(flags);
  errors.allow(page, NETWORK_ERROR);
  const view = await TranscriptPage.openTask(page, first, 'rec-notes-json');
  await view.waitConnected();
  await view.waitForRow('m30 ');
  const before = await view.rowSummary();

  await first.stop();
  await view.waitDisconnected();
  await view.retry.waitFor();
  expect(await view.rowSummary(), 'rows kept while offline').toEqual(before);
  const group = view.groups.first().locator('button').first();
  await group.click();
  expect(await group.getAttribute('aria-expanded'), 'a group still opens offline').toBe('true');

  writeFileSync(file, recording(35));
  const second = await serve(flags, { port: first.port });
  await view.waitConnected({ timeout: 60000 });
  await view.waitForRow('m35 ');
  const loaded = await TranscriptPage.openTask(await openPage(), second, 'rec-notes-json');
  await view.sameRowsAs(loaded, 'caught-up rows and a fresh load', { timeoutMs: 30000 });
  expect(errors.of(page).length, `connection errors: ${errors.of(page).join(' | ')}`).toBeLessThanOrEqual(12);
});

test('a board whose backend (?api=) is down at first appears when the backend starts', async ({ page, app, serve, errors }) => {
  const port = await freePort();
  const api = `http://127.0.0.1:${port}`;
  errors.allow(page, NETWORK_ERROR);
  const board = await BoardPage.open(page, app, `?api=${encodeURIComponent(api)}`);
  await board.emptyState('No board data reachable yet').waitFor();
  await board.waitDisconnected();
  // Another port is another origin: the backend lets the app's page read it (docs/security.md).
  const origin = new URL(app.url).origin;
  await serve(['--scenario', 'lifecycle', '--once', '--start-delay-ms', '600000', '--allow-origin', origin], { port });
  const link = board.card('task-7c1e').link;
  await link.waitFor({ timeout: 60000 });
  expect(await link.getAttribute('href'), 'links keep ?api=').toBe(`/task/task-7c1e?api=${encodeURIComponent(api)}`);
  await board.waitConnected();
});

test('malformed frames are counted, logged once per kind, and never break the view', async ({ page, openPage, serve }) => {
  const server = await serve(['--scenario', 'lifecycle', '--once', '--interval-ms', '150',
    '--start-delay-ms', '3000', '--inject-malformed-every', '1']);
  const warnings = [];
  page.on('console', (m) => {
    if (m.type() === 'warning' && m.text().startsWith('taskview: ignored a frame')) warnings.push(m.text());
  });
  const board = await BoardPage.open(page, server, '?debug');
  const card = board.card('task-7c1e');
  await card.root.waitFor();
  await card.subagentChip.filter({ hasText: '2' }).waitFor();
  await eventually(async () => (await server.scenario()).finished, 'the lifecycle scenario to finish');
  await eventually(async () => (await card.subagentChip.count()) === 0, 'the chip to go');
  const issues = await board.frameIssues();
  expect(Object.keys(issues).sort(), 'kinds counted').toEqual([
    'invalid frame',
    'malformed session.message.updated payload',
    'malformed session.turn.started payload',
    'malformed task.deleted payload',
    'malformed task.updated payload',
    'unknown action "taskview.bogus"',
  ]);
  for (const [kind, count] of Object.entries(issues)) {
    expect(count, `${kind} counted (the test needs repeats)`).toBeGreaterThanOrEqual(2);
    expect(warnings.filter((w) => w.includes(kind)).length, `warnings for ${kind}`).toBe(1);
  }
  expect(warnings.length, 'one warning per kind').toBe(Object.keys(issues).length);

  const transcript = await TranscriptPage.openTask(await openPage(), server, 'task-7c1e', { debug: false });
  await transcript.subagentCards.first().waitFor();
  expect(await transcript.subagentCards.count(), 'cards with malformed frames around').toBe(2);
});
