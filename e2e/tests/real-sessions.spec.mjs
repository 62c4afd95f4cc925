// Real Claude Code sessions (tests/fixtures/real/, recorded by other tools)
// opened with their subagent files (docs/formats.md §7, docs/user-guide.md "Opening transcript
// files"): through `/view?src=` (the session's companions fetched beside it),
// a dropped folder, a picked folder, and `taskview serve --recordings` on a
// tree laid out like ~/.claude/projects. Each checks the card faces (docs/behaviour.md
// §3.1: plain summary line, tool-derived child count, the tools chip hidden
// when it agrees), that no card is an orphan, and a deep link to a child
// inside a card (docs/behaviour.md §4).
import { cpSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { test, expect } from '../lib/fixtures.mjs';
import { dropFolder, filesUnder } from '../lib/drop.mjs';
import { ROOT, ServedFolder } from '../lib/files.mjs';
import { TranscriptPage } from '../pages/transcript.mjs';

const REAL = path.join(ROOT, 'tests/fixtures/real/claude-code-log');
const SHOWCASE = path.join(REAL, 'minimal_showcase');
const SHOWCASE_ID = '55550000-0000-4000-8000-000000000001';
const WORKFLOW_ID = '22220000-0000-4000-8000-000000000002';
const CLAUDE_DIALECT = 'Claude Code session JSONL';

/** The showcase session's two Agent cards, as its files say they read. */
const SHOWCASE_FACES = [
  {
    id: 'toolu_sc_showcol1',
    face: {
      type: 'general-purpose', description: 'Survey the web module', childCount: null,
      summary: 'The web module renders its pages in a column layout (screenshot attached).',
      // its transcript has text only, so the reported tool use shows; `subagent_tokens` is read
      chips: [['duration', '4.2s'], ['tokens', '1.2k tokens'], ['tools', '1 tool'], ['model', 'claude-haiku-4-5-20251001']],
      notLoaded: false,
    },
  },
  {
    id: 'toolu_sc_showcol2',
    face: {
      type: 'general-purpose', description: 'Survey the jobs module', childCount: '1 tool call',
      summary: 'The jobs module defines three scheduled jobs: cleanup, reindex, report.',
      // 1 reported tool use = 1 child tool call: the tools chip is hidden
      chips: [['duration', '4.2s'], ['tokens', '1.2k tokens'], ['model', 'claude-haiku-4-5-20251001']],
      notLoaded: false,
    },
  },
];

/** The same cards without their transcripts: "transcript not loaded", tools shown. */
const NOT_LOADED_FACES = SHOWCASE_FACES.map(({ id, face }) => ({
  id,
  face: {
    ...face, childCount: null, notLoaded: true,
    chips: [['duration', '4.2s'], ['tokens', '1.2k tokens'], ['tools', '1 tool']],
  },
}));

/** The faces that matter here (type, description, count, summary, chips, note). */
async function faces(view) {
  return (await view.topLevelFaces()).map(({ id, face }) => ({
    id,
    face: {
      type: face.type, description: face.description, childCount: face.childCount,
      summary: face.summary, chips: face.chips, notLoaded: face.notLoaded,
    },
  }));
}

/** Checks the showcase's faces; `file` for the file view, whose badge names the dialect. */
async function expectShowcase(view, expected = SHOWCASE_FACES, { file = true } = {}) {
  if (file) await expect(view.dialect).toHaveText(CLAUDE_DIALECT);
  await expect(view.subagentCards.first()).toBeVisible();
  expect(await faces(view), 'card faces').toEqual(expected);
  await expect(view.orphanCards).toHaveCount(0);
}

/** The Grep the jobs agent ran, reached by `#msg-toolu_sc_grep`, in view inside its opened card. */
async function expectLinkedChild(view) {
  await expect(view.message('toolu_sc_grep')).toBeInViewport();
  await expect(view.card('toolu_sc_showcol2').head).toHaveAttribute('aria-expanded', 'true');
}

const it = test.extend({
  // The real captures served as folders (`dist/e2e/<folder>/`): the showcase
  // with its subagents folder, the workflow session with its runs, and the
  // showcase session alone.
  served: async ({}, use, testInfo) => {
    const folder = new ServedFolder(`${testInfo.workerIndex}-${testInfo.testId}`);
    cpSync(SHOWCASE, path.join(folder.dir, 'showcase'), { recursive: true });
    cpSync(path.join(REAL, 'workflow_scriptpath'), path.join(folder.dir, 'workflow'), { recursive: true });
    cpSync(path.join(SHOWCASE, `${SHOWCASE_ID}.jsonl`), path.join(folder.dir, 'alone', `${SHOWCASE_ID}.jsonl`));
    const url = (rel) => `/e2e/${folder.name}/${rel}`;
    await use({
      showcase: url(`showcase/${SHOWCASE_ID}.jsonl`),
      workflow: url(`workflow/${WORKFLOW_ID}.jsonl`),
      alone: url(`alone/${SHOWCASE_ID}.jsonl`),
    });
    folder.remove();
  },

  // `taskview serve --recordings` on a tree laid out like ~/.claude/projects,
  // with a compaction helper that must be neither a task nor read.
  projects: async ({ serve }, use, testInfo) => {
    const dir = testInfo.outputPath('projects');
    cpSync(SHOWCASE, path.join(dir, '-workspace-example-app'), { recursive: true });
    cpSync(path.join(REAL, 'workflow_scriptpath'), path.join(dir, '-repo'), { recursive: true });
    cpSync(path.join(SHOWCASE, SHOWCASE_ID, 'subagents', 'agent-showcol1.jsonl'),
      path.join(dir, '-workspace-example-app', SHOWCASE_ID, 'subagents', 'agent-acompact-5e1f.jsonl'));
    await use(await serve(['--recordings', dir]));
  },
});

it.use({ viewport: { width: 1280, height: 1600 } });

it('/view?src= of a real session fetches its subagent files: full card faces, no orphans',
  async ({ page, app, served }) => {
    await expectShowcase(await TranscriptPage.openFile(page, app, served.showcase));
  });

it('/view?src=: a deep link to a child inside a card opens the card and shows the child',
  async ({ page, app, served }) => {
    const view = await TranscriptPage.openFile(page, app, served.showcase, { hash: '#msg-toolu_sc_grep' });
    await expectLinkedChild(view);
  });

it('/view?src= without the subagent files: "transcript not loaded", reported tools, no orphans',
  async ({ page, app, served, errors }) => {
    // The two subagent files the session names are fetched beside it, and are not there.
    errors.allow(page, /status of 404/);
    await expectShowcase(await TranscriptPage.openFile(page, app, served.alone), NOT_LOADED_FACES);
    expect(errors.of(page), 'one 404 per missing subagent file')
      .toEqual([expect.stringMatching(/status of 404/), expect.stringMatching(/status of 404/)]);
  });

it('/view?src= of a Workflow session: a workflow card holding one card per workflow agent',
  async ({ page, app, served, errors }) => {
    // The run that died before launching agents has no files: its summary answers 404.
    errors.allow(page, /status of 404/);
    const view = await TranscriptPage.openFile(page, app, served.workflow);
    await expect(view.dialect).toHaveText(CLAUDE_DIALECT);
    await expect(view.subagentCards.first()).toBeVisible();
    expect((await view.topLevelFaces()).map(({ id, face }) => [id, face.type, face.description, face.childCount]))
      .toEqual([
        ['toolu_wfsp01', 'workflow', "Sweep the team's docs tree in batches", '1 tool call'],
        ['toolu_wffail01', 'workflow', 'Sweep variant that dies before launching agents', null],
      ]);
    await expect(view.orphanCards).toHaveCount(0);
    await view.card('toolu_wfsp01').expand();
    const agent = view.card('workflow-agent-agsp0001');
    await expect(agent.type).toHaveText('workflow-subagent');
    await expect(agent.summary).toHaveText('Batch a and b swept; 2 stale pages flagged.');
  });

it('a dropped folder opens the session with its subagents folder', async ({ page, app }) => {
  const view = await new TranscriptPage(page).goto('view', app);
  await dropFolder(view, 'minimal_showcase', filesUnder(SHOWCASE));
  await expectShowcase(view);
  await expect(view.sourceName).toHaveText(`minimal_showcase/${SHOWCASE_ID}.jsonl`);
});

/** Two sessions in folders of their own, as in ~/.claude/projects. */
function twoProjects() {
  const under = (folder, dir) => filesUnder(dir).map(([rel, text]) => [`${folder}/${rel}`, text]);
  return [...under('-showcase', SHOWCASE), ...under('-repo', path.join(REAL, 'workflow_scriptpath'))];
}

/** Whether `text`, in the element `name`, is drawn in full: neither clipped nor under an ellipsis. */
async function drawnInFull(name, text) {
  return name.evaluate((el, text) => {
    const ellipsis = parseFloat(getComputedStyle(el).fontSize);
    const walker = document.createTreeWalker(el, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      const at = node.data.indexOf(text);
      if (at < 0) continue;
      const range = document.createRange();
      range.setStart(node, at);
      range.setEnd(node, at + text.length);
      const drawn = range.getBoundingClientRect();
      for (let box = node.parentElement; el.contains(box); box = box.parentElement) {
        const { left, right } = box.getBoundingClientRect();
        const cut = box.scrollWidth > box.clientWidth;
        if (drawn.left < left || drawn.right > right - (cut ? ellipsis : 0)) return false;
      }
      return drawn.width > 0;
    }
    return false;
  }, text);
}

it('a dropped folder of several sessions lists them; the one picked opens, "Other sessions" goes back',
  async ({ page, app }) => {
    const view = await new TranscriptPage(page).goto('view', app);
    await dropFolder(view, 'projects', twoProjects());
    const chooser = page.getByTestId('session-chooser');
    await expect(chooser.getByRole('heading')).toHaveText('This folder holds 2 sessions');
    const choices = chooser.getByTestId('session-choice');
    await expect(choices).toHaveCount(2);
    const showcase = choices.filter({ hasText: SHOWCASE_ID });
    await expect(showcase.locator('.session-folder'), 'below the dropped folder').toHaveText('-showcase');
    await expect(showcase).toContainText('2 subagents');
    // Titled by each session's first prompt, as --recordings titles its tasks.
    await expect(showcase.locator('.session-name'))
      .toHaveText('Give me a tour of the repository: its structure, then compare the web and jobs…');
    await expect(choices.filter({ hasText: WORKFLOW_ID }).locator('.session-name'))
      .toHaveText('Run the docs sweep workflow from its file.');
    await expect(view.subagentCards, 'nothing opens before a pick').toHaveCount(0);

    await showcase.click();
    await expectShowcase(view);
    await expect(view.sourceName).toHaveText(`projects/-showcase/${SHOWCASE_ID}.jsonl`);

    await page.getByTestId('other-sessions').click();
    await expect(choices).toHaveCount(2);
    await choices.filter({ hasText: WORKFLOW_ID }).click();
    await expect(view.card('toolu_wfsp01').type).toHaveText('workflow');
    await expect(page.getByTestId('other-sessions')).toHaveText('Other sessions (1)');

    // A file opened on its own is not one of that folder's sessions.
    const alone = readFileSync(path.join(SHOWCASE, `${SHOWCASE_ID}.jsonl`));
    await page.getByTestId('file-input').setInputFiles({ name: 'alone.jsonl', mimeType: 'application/json', buffer: alone });
    await expect(view.sourceName).toHaveText('alone.jsonl');
    await expect(page.getByTestId('other-sessions')).toHaveCount(0);
  });

it('on a phone the file bar of a session picked from a folder shows its file name; the whole path is its tooltip',
  async ({ page, app }) => {
    await page.setViewportSize({ width: 390, height: 800 });
    const view = await new TranscriptPage(page).goto('view', app);
    await dropFolder(view, 'projects', twoProjects());
    await page.getByTestId('session-choice').filter({ hasText: SHOWCASE_ID }).click();
    await expect(view.dialect).toHaveText(CLAUDE_DIALECT);
    const whole = `projects/-showcase/${SHOWCASE_ID}.jsonl`;
    await expect(view.sourceName, 'read whole by a screen reader').toHaveText(whole);
    // Beside the dialect and "Download HTML" only a few characters fit at 390 px.
    expect(await drawnInFull(view.sourceName, SHOWCASE_ID.slice(0, 4)), 'the start of its file name in view').toBe(true);
    await expect(view.sourceName).toHaveAttribute('title', whole);
  });

it('a folder\'s sessions are read one after another under a progress bar, then listed',
  async ({ page, app }) => {
    const view = await new TranscriptPage(page).goto('view', app);
    // Each read of a file's text waits for the test to let it through.
    await page.evaluate(() => {
      const text = Blob.prototype.text;
      const waiting = [];
      let credit = 0;
      Blob.prototype.text = function read() {
        if (credit > 0) { credit--; return text.call(this); }
        return new Promise((go) => waiting.push(go)).then(() => text.call(this));
      };
      window.letOneRead = () => { const go = waiting.shift(); if (go) go(); else credit++; };
      window.letAllRead = () => { Blob.prototype.text = text; waiting.splice(0).forEach((go) => go()); };
    });
    const prompt = (id) => JSON.stringify({ type: 'user', uuid: `u-${id}`, sessionId: id,
      timestamp: '2026-01-01T00:00:00Z', message: { role: 'user', content: `Prompt of ${id}` } });
    await dropFolder(view, 'three', ['s1', 's2', 's3'].map((id) => [`-repo/${id}.jsonl`, prompt(id)]));
    const bar = page.getByRole('progressbar', { name: 'Reading the sessions' });
    for (const [read, percent] of [[0, '0'], [1, '33'], [2, '66']]) {
      await expect(bar).toHaveAttribute('aria-valuetext', `${read} of 3 sessions read`);
      await expect(bar).toHaveAttribute('aria-valuenow', percent);
      await expect(view.page.getByTestId('load-progress')).toContainText(`${read} of 3 sessions read`);
      await expect(view.sourceName).toHaveText('three');
      await expect(view.dialect, 'no dialect yet').toBeHidden();
      await expect(page.getByTestId('transcript'), 'no transcript while the sessions are read').toHaveCount(0);
      await page.evaluate(() => window.letOneRead());
    }
    await page.evaluate(() => window.letAllRead());
    const choices = page.getByTestId('session-choice');
    await expect(choices).toHaveCount(3);
    await expect(choices.locator('.session-name')).toHaveText(['Prompt of s1', 'Prompt of s2', 'Prompt of s3']);
    await expect(bar).toHaveCount(0);
  });

it('a dropped folder without a transcript says so, and a folder of one session opens it at once',
  async ({ page, app }) => {
    const view = await new TranscriptPage(page).goto('view', app);
    await dropFolder(view, 'notes', [['readme.md', '# notes'], ['x/agent-a1.jsonl', '{}']]);
    const error = page.getByTestId('load-error');
    await expect(error).toContainText('the folder holds no transcript (.json or .jsonl)');
    await expect(error).toContainText('notes');
    const showcase = filesUnder(SHOWCASE).map(([rel, text]) => [`-repo/${rel}`, text]);
    await dropFolder(view, 'one', [['-repo/notes.md', 'hi'], ...showcase]);
    await expectShowcase(view);
    await expect(page.getByTestId('session-chooser')).toHaveCount(0);
    await expect(page.getByTestId('other-sessions')).toHaveCount(0);
  });

it('a picked folder opens the session with its subagents folder', async ({ page, app }) => {
  const view = await new TranscriptPage(page).goto('view', app);
  await view.folderInput.setInputFiles(SHOWCASE);
  await expectShowcase(view);
});

const SHOWCASE_TASK = `rec-${SHOWCASE_ID}-jsonl`;

it('--recordings on a projects tree: one task per session, titled by its first prompt', async ({ projects }) => {
  const snapshot = await projects.json('api/v1/workflows/wf-recordings/snapshot');
  expect(snapshot.tasks.map((t) => [t.id, t.title])).toEqual([
    [`rec-${WORKFLOW_ID}-jsonl`, 'Run the docs sweep workflow from its file.'],
    [SHOWCASE_TASK, 'Give me a tour of the repository: its structure, then compare the web and jobs…'],
  ]);
});

it('--recordings: the task page shows the full cards, no orphans, and deep links to a child',
  async ({ page, projects }) => {
    await expectShowcase(await TranscriptPage.openTask(page, projects, SHOWCASE_TASK), SHOWCASE_FACES,
      { file: false });
    const linked = await new TranscriptPage(page).goto(`task/${SHOWCASE_TASK}#msg-toolu_sc_grep`, projects);
    await expectLinkedChild(linked);
  });
