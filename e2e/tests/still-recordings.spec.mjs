// A recording nobody writes any more (docs/behaviour.md §8 "Honest lifecycle"): `taskview
// serve --recordings` on the captured Claude Code `interrupted` story (the CLI
// got SIGINT while two background agents ran), its files last written an hour
// ago, past the server's idle threshold. The server says so
// (`primary_session_still`, taskview's own task field) and the task page reads
// each unsettled agent `interrupted · no result recorded`, without a spinner;
// when the file grows again, the session is live again and they read stalled
// (live, by the page's clock, hours since their last child).
import { appendFileSync, cpSync, readFileSync, utimesSync } from 'node:fs';
import { randomUUID } from 'node:crypto';
import path from 'node:path';
import { captures } from '../lib/captures.mjs';
import { filesUnder } from '../lib/drop.mjs';
import { test, expect } from '../lib/fixtures.mjs';
import { eventually } from '../lib/poll.mjs';
import { Roster } from '../pages/fanout.mjs';
import { TranscriptPage } from '../pages/transcript.mjs';

const INTERRUPTED = captures('claude-code-2.1.332').find((c) => c.name === 'interrupted');
const AGENTS = INTERRUPTED.manifest.holds.agents.filter((a) => a.status === 'interrupted');

/** A prompt typed into session file `file`, after its last record, as Claude Code writes one. */
function promptLine(file, text) {
  const records = readFileSync(file, 'utf8').split('\n').filter((l) => l.trim()).map((l) => JSON.parse(l));
  const first = records.find((r) => r.type === 'user');
  const last = records.filter((r) => r.uuid).at(-1);
  return `${JSON.stringify({
    ...first, parentUuid: last.uuid, uuid: randomUUID(), promptId: randomUUID(),
    message: { role: 'user', content: text }, timestamp: new Date().toISOString(), sentAtMs: Date.now(),
  })}\n`;
}

test.use({ viewport: { width: 1280, height: 1600 } });

test('a recording idle past the threshold reads interrupted, no spinner; growing again, it is live',
  async ({ page, serve }, testInfo) => {
    expect(AGENTS.length, 'the story leaves agents unsettled').toBeGreaterThan(0);
    const projects = testInfo.outputPath('projects');
    const project = path.join(projects, INTERRUPTED.slug);
    cpSync(INTERRUPTED.project, project, { recursive: true });
    const anHourAgo = new Date(Date.now() - 60 * 60 * 1000);
    for (const [rel] of filesUnder(project)) utimesSync(path.join(project, rel), anHourAgo, anHourAgo);
    const server = await serve(['--recordings', projects, '--poll-ms', '200']);
    const { tasks } = await server.json('api/v1/workflows/wf-recordings/snapshot');
    expect(tasks.map((t) => t.primary_session_still)).toEqual([true]);

    const view = await TranscriptPage.openTask(page, server, tasks[0].id);
    const statusOf = (description) => page.locator(
      `[data-testid="subagent-card"]:has(> .card-head [title="${description}"]) > .card-head [data-testid="subagent-status"]`,
    ).first();
    for (const agent of AGENTS) {
      await expect(statusOf(agent.description), agent.key).toHaveText('interrupted · no result recorded');
      await expect(statusOf(agent.description), agent.key).toHaveAttribute('data-state', 'interrupted');
    }
    await expect(view.scroller.locator('.card-head .spinner'), 'no card spins').toHaveCount(0);
    // The roster agrees with the cards: none of them is running.
    const roster = new Roster(page);
    await expect(roster.filter('running'), 'none runs in a still recording').toHaveText('running · 0');

    const [session] = filesUnder(project).map(([rel]) => rel).filter((rel) => !rel.includes('/'));
    appendFileSync(path.join(project, session), promptLine(path.join(project, session), 'Are you still there?'));
    await eventually(async () => {
      const task = await server.json(`api/v1/tasks/${tasks[0].id}`).catch(() => null);
      return task?.primary_session_still === false;
    }, 'the server to say the session is written again');
    // Live again, time is the page's: hours without a new child is stalled.
    for (const agent of AGENTS) {
      await expect(statusOf(agent.description), agent.key).toHaveText('background · stalled');
      await expect(statusOf(agent.description), agent.key).toHaveAttribute('data-state', 'stalled');
    }
    await expect(roster.filter('running'), 'live, they may be at work').toHaveText(`running · ${AGENTS.length}`);
    await expect(view.scroller).toContainText('Are you still there?');
  });
