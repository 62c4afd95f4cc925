// OpenCode (docs/formats.md §9): a captured `opencode export` of the root session
// (OpenCode 1.18.33, tests/fixtures/captures/), opened by URL in the file
// view, fetches its child sessions' exports beside it and shows every
// scripted subagent as a card (docs/behaviour.md §3.1) as its manifest says: type,
// description, status, child count and a one-line summary, with no unreadable
// row and no wrapper text (docs/behaviour.md §1). Each story's folder of exports,
// dropped as the user exported it, opens its root session the same way, with
// every child session's export read with it. The same story's SQLite store,
// watched by `taskview serve --recordings`, is one settled task on the board.
import { cpSync, mkdirSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { ROOT, ServedFolder } from '../lib/files.mjs';
import { toolCalls, WRAPPERS } from '../lib/captures.mjs';
import { dropFolder, filesUnder } from '../lib/drop.mjs';
import { test, expect } from '../lib/fixtures.mjs';
import { BoardPage } from '../pages/board.mjs';
import { TranscriptPage } from '../pages/transcript.mjs';

const CAPTURES = path.join(ROOT, 'tests/fixtures/captures/opencode-1.18.33');
const CAPTURE = path.join(CAPTURES, 'parallel-wave');
/** Every story the harness captured, in name order. */
const STORIES = Object.entries(JSON.parse(readFileSync(path.join(CAPTURES, 'manifest.json'), 'utf8')).scenarios)
  .filter(([, s]) => s.status === 'captured').map(([name]) => name).sort();
/** A settled card's status word; the file view is a file nobody writes (docs/behaviour.md §8). */
const STATUS_WORD = { completed: null, failed: 'failed', interrupted: 'interrupted · no result recorded' };
const { agents } = JSON.parse(readFileSync(path.join(CAPTURE, 'manifest.json'), 'utf8')).holds;

test.use({ viewport: { width: 1280, height: 1600 } });

test('an OpenCode export by URL: every scripted subagent a card as scripted, no wrapper text', async ({ page, app }, testInfo) => {
  const exports = path.join(CAPTURE, 'exports');
  const root = readdirSync(exports)
    .find((f) => !JSON.parse(readFileSync(path.join(exports, f), 'utf8')).info.parentID);
  const folder = new ServedFolder(`${testInfo.workerIndex}-${testInfo.testId}`);
  cpSync(exports, folder.dir, { recursive: true });
  try {
    const view = await TranscriptPage.openFile(page, app, `/e2e/${folder.name}/${root}`, { debug: true });
    await expect(view.dialect).toHaveText('OpenCode session export', { timeout: 20000 });
    await expect(view.subagentCards).toHaveCount(agents.length);
    const rows = await view.rowSummary();
    expect(rows.filter((r) => r.trim().startsWith('unreadable')), 'unreadable rows').toEqual([]);
    for (const wrapper of WRAPPERS) await expect(view.scroller, wrapper).not.toContainText(wrapper);
    const faces = new Map((await view.topLevelFaces()).map(({ face }) => [face.descriptionTitle, face]));
    for (const agent of agents) {
      const face = faces.get(agent.description);
      expect(face, `${agent.key}: a card`).toBeTruthy();
      expect(face.type, `${agent.key}: type`).toBe(agent.type);
      expect(agent.status, `${agent.key}: the story settles it`).toBe('completed');
      expect(face.status, `${agent.key}: settled, no status word`).toBe(null);
      const calls = Object.values(agent.actions ?? {}).reduce((a, b) => a + b, 0);
      expect(face.childCount, `${agent.key}: its child session's calls`).toBe(toolCalls(calls));
      expect(face.summary, `${agent.key}: a summary`).toBeTruthy();
      expect(face.notLoaded, `${agent.key}: its transcript fetched`).toBe(false);
    }
  } finally {
    folder.remove();
  }
});

test('an OpenCode store watched by `serve --recordings`: one settled task on the board, no chip, its cards on its page',
  async ({ page, serve }, testInfo) => {
    const home = testInfo.outputPath('opencode');
    mkdirSync(home, { recursive: true });
    cpSync(path.join(CAPTURE, 'opencode.db'), path.join(home, 'opencode.db'));
    const server = await serve(['--recordings', home, '--poll-ms', '200']);
    const { tasks } = await server.json('api/v1/workflows/wf-recordings/snapshot');
    expect(tasks.map((t) => [t.title, t.state])).toEqual([['Scripted session', 'COMPLETED']]);
    const board = await BoardPage.open(page, server, 'board/wf-recordings');
    const card = board.card(tasks[0].id);
    await expect(card.title).toHaveText('Scripted session');
    await expect(card.subagentChip, 'nothing runs: no chip').toHaveCount(0);
    await card.link.first().click();
    const view = new TranscriptPage(page);
    await expect(view.subagentCards).toHaveCount(agents.length);
    const faces = new Map((await view.topLevelFaces()).map(({ face }) => [face.descriptionTitle, face]));
    for (const agent of agents) expect(faces.get(agent.description)?.type, agent.key).toBe(agent.type);
  });

for (const story of STORIES) {
  test(`OpenCode ${story}: its folder of exports dropped opens the root session, every scripted subagent a card as scripted`,
    async ({ page, app }) => {
      const dir = path.join(CAPTURES, story);
      const { holds } = JSON.parse(readFileSync(path.join(dir, 'manifest.json'), 'utf8'));
      const view = await new TranscriptPage(page).goto('view?debug', app);
      await dropFolder(view, 'exports', filesUnder(path.join(dir, 'exports')));
      await expect(view.dialect).toHaveText('OpenCode session export', { timeout: 20000 });
      await expect(view.notShown).toBeVisible();
      const rows = await view.rowSummary();
      expect(rows.filter((r) => r.trim().startsWith('unreadable')), `${story}: unreadable rows`).toEqual([]);
      for (const wrapper of WRAPPERS) {
        expect(rows.filter((r) => r.includes(wrapper)), `${story}: ${wrapper} in a row`).toEqual([]);
        await expect(view.scroller, `${story}: ${wrapper} on screen`).not.toContainText(wrapper);
      }
      expect(rows.filter((r) => / subagent: /.test(r)).length, `${story}: one card per scripted subagent`)
        .toBe(holds.subagents);
      const faces = new Map((await view.topLevelFaces()).map(({ face }) => [face.descriptionTitle, face]));
      const top = holds.agents.filter((a) => a.parent === 'main');
      const shown = top.filter((a) => faces.has(a.description));
      expect(shown.length, `${story}: cards on screen`).toBeGreaterThan(0);
      for (const agent of shown) {
        const face = faces.get(agent.description);
        const what = `${story} ${agent.key}`;
        expect(face.type, `${what}: type`).toBe(agent.type);
        expect(face.status, `${what}: status`).toBe(STATUS_WORD[agent.status]);
        if (agent.status === 'interrupted') continue;
        const calls = Object.values(agent.actions ?? {}).reduce((a, b) => a + b, 0);
        expect(face.childCount, `${what}: its child session's calls`).toBe(toolCalls(calls));
        expect(face.notLoaded, `${what}: its child session's export read`).toBe(false);
        if (agent.status === 'completed') expect(face.summary, `${what}: a summary`).toBeTruthy();
      }
      // A file nobody writes: no card spins (docs/behaviour.md §8).
      await expect(view.scroller.locator('.card-head .spinner'), `${story}: spinning cards`).toHaveCount(0);
    });
}

test('OpenCode: a folder of two sessions\' exports lists each root, its detail counting its child exports',
  async ({ page, app }) => {
    // The chooser's "N subagents" (core `sessions::chosen`): each child export
    // descends from its root by `info.parentID`.
    const stories = ['parallel-wave', 'failures'];
    const files = stories.flatMap((story) => filesUnder(path.join(CAPTURES, story, 'exports')));
    const rootOf = (story) => {
      const dir = path.join(CAPTURES, story, 'exports');
      const name = readdirSync(dir).find((n) => !JSON.parse(readFileSync(path.join(dir, n), 'utf8')).info.parentID);
      return { name: name.replace(/\.json$/, ''), subagents: readdirSync(dir).length - 1 };
    };
    const view = await new TranscriptPage(page).goto('view?debug', app);
    await dropFolder(view, 'exports', files);
    const chooser = page.getByTestId('session-chooser');
    await expect(chooser.getByRole('heading')).toHaveText('This folder holds 2 sessions', { timeout: 20000 });
    const choices = chooser.getByTestId('session-choice');
    await expect(choices).toHaveCount(2);
    for (const story of stories) {
      const { name, subagents } = rootOf(story);
      const { holds } = JSON.parse(readFileSync(path.join(CAPTURES, story, 'manifest.json'), 'utf8'));
      expect(subagents, `${story}: one export per scripted subagent`).toBe(holds.subagents);
      await expect(choices.filter({ hasText: name }).locator('.session-detail'), story)
        .toContainText(`${subagents} subagents · `);
    }
  });
