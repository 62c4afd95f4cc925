// Captures of today's agents (docs/formats.md §8), opened in the file view the way a
// user opens them: the project folder the CLI wrote, dropped (its subagents
// folder with it), and one session by URL. Each shows no unreadable row and
// no transport wrapper as text (docs/behaviour.md §1), says how many records it did
// not show, and every subagent the scenario scripted is a card whose face
// (docs/behaviour.md §3.1) agrees with the capture's manifest.
import { ServedFolder } from '../lib/files.mjs';
import { captures, reportedSession, toolCalls, WRAPPERS } from '../lib/captures.mjs';
import { dropFolder, filesUnder } from '../lib/drop.mjs';
import { test, expect } from '../lib/fixtures.mjs';
import { cpSync } from 'node:fs';
import path from 'node:path';
import { TranscriptPage } from '../pages/transcript.mjs';

const CLAUDE_CODE = captures('claude-code-2.1.332');
const QWEN_CODE = captures('qwen-code-0.24.4');
const COPILOT = captures('copilot-1.0.102');
/** Each CLI's captures and the dialect its sessions read as. */
const CLIS = [
  { cli: 'Claude Code', all: CLAUDE_CODE, dialect: 'Claude Code session JSONL' },
  { cli: 'qwen-code', all: QWEN_CODE, dialect: 'qwen-code chat recording' },
  { cli: 'Copilot CLI', all: COPILOT, dialect: 'Copilot CLI session events' },
];
const STATUS_WORD = {
  completed: null, failed: 'failed', cancelled: 'cancelled',
  // The file view is a file nobody writes any more (docs/behaviour.md §8).
  interrupted: 'interrupted · no result recorded',
};

test.use({ viewport: { width: 1280, height: 1600 } });

/**
 * The file view with `capture`'s project folder dropped on it, read to the
 * end. A folder of several sessions (a fork beside its origin) lists them
 * first: the one the story ends in is picked.
 */
async function dropped(page, app, capture) {
  const view = await new TranscriptPage(page).goto('view?debug', app);
  await dropFolder(view, capture.slug, filesUnder(capture.project));
  const chooser = page.getByTestId('session-chooser');
  await expect(view.notShown.or(chooser)).toBeVisible({ timeout: 20000 });
  if (await chooser.isVisible()) {
    await chooser.getByTestId('session-choice').filter({ hasText: reportedSession(capture) }).click();
    await expect(view.notShown).toBeVisible({ timeout: 20000 });
  }
  return view;
}

/** No unreadable row and no wrapper text, in the whole transcript and on screen. */
async function expectClean(view, name) {
  const rows = await view.rowSummary();
  expect(rows.length, `${name}: rows`).toBeGreaterThan(1);
  expect(rows.filter((r) => r.trim().startsWith('unreadable')), `${name}: unreadable rows`).toEqual([]);
  for (const wrapper of WRAPPERS) {
    expect(rows.filter((r) => r.includes(wrapper)), `${name}: ${wrapper} in a row`).toEqual([]);
    await expect(view.scroller, `${name}: ${wrapper} on screen`).not.toContainText(wrapper);
  }
}

/** The scripted agents whose cards are top-level rows. */
function topLevelAgents(capture) {
  return capture.manifest.holds.agents.filter((a) => a.parent === 'main' && a.launch !== 'workflow');
}

/** Expects `face` to be what the manifest scripted for `agent`. */
function expectFace(face, agent, what) {
  expect(face.type, `${what}: type`).toBe(agent.type);
  expect(face.descriptionTitle, `${what}: description`).toBe(agent.description);
  expect(face.status, `${what}: status`).toBe(STATUS_WORD[agent.status]);
  // Cut off mid-run: no chips, and only the calls made before the cut.
  if (agent.status === 'interrupted') return;
  const calls = Object.values(agent.actions ?? {}).reduce((a, b) => a + b, 0);
  expect(face.childCount, `${what}: child count`).toBe(toolCalls(calls));
  const chips = face.chips.map(([id]) => id);
  // A launch its CLI refused ran nothing: no time taken, no model answered, and
  // a chip shows only when its data is present (docs/behaviour.md §3.1).
  const refused = agent.how?.startsWith('refused at launch') ?? false;
  for (const chip of ['duration', 'model']) expect(chips.includes(chip), `${what}: ${chip}`).toBe(!refused);
  expect(chips.includes('background'), `${what}: background`).toBe(agent.launch.startsWith('background'));
  if (agent.status === 'completed') {
    expect(chips, `${what}: tokens`).toContain('tokens');
    expect(face.summary, `${what}: summary`).toBeTruthy();
    expect(face.summary, `${what}: a summary, not its heading`).not.toBe('Summary');
  }
}

/** The faces of the top-level cards on screen, by their full description. */
async function facesByDescription(view) {
  const faces = await view.topLevelFaces();
  return new Map(faces.map(({ face }) => [face.descriptionTitle, face]));
}


for (const { cli, all, dialect } of CLIS) for (const capture of all) {
  test(`${cli} ${capture.name}, dropped as a folder: no unreadable row, no wrapper text, every card as scripted`,
    async ({ page, app }) => {
      const view = await dropped(page, app, capture);
      await expect(view.dialect).toHaveText(dialect);
      await expectClean(view, capture.name);
      const { holds } = capture.manifest;
      const cards = (await view.rowSummary()).filter((r) => / subagent: /.test(r));
      const workflows = holds.inWorkflow.length ? 1 : 0;
      expect(cards.length, `${capture.name}: one card per scripted subagent`).toBe(holds.subagents + workflows);
      const faces = await facesByDescription(view);
      const shown = topLevelAgents(capture).filter((a) => faces.has(a.description));
      if (topLevelAgents(capture).length) expect(shown.length, `${capture.name}: cards on screen`).toBeGreaterThan(0);
      for (const agent of shown) expectFace(faces.get(agent.description), agent, `${capture.name} ${agent.key}`);
      // A file nobody writes: no card spins, whatever its run left open (docs/behaviour.md §8).
      await expect(view.scroller.locator('.card-head .spinner'), `${capture.name}: spinning cards`).toHaveCount(0);
    });
}

for (const { cli, all } of CLIS) test(`a ${cli} session by URL fetches its subagents and reads like the dropped folder`, async ({ page, app }, testInfo) => {
  const capture = all.find((c) => c.name === 'parallel-wave');
  const folder = new ServedFolder(`${testInfo.workerIndex}-${testInfo.testId}`);
  cpSync(capture.project, folder.dir, { recursive: true });
  // The session: the one file at the top (Claude Code, Copilot CLI's
  // events.jsonl), or the chat (qwen-code).
  const session = filesUnder(capture.project).map(([rel]) => rel)
    .find((rel) => rel.endsWith('.jsonl') && (!rel.includes('/') || rel.startsWith('chats/')));
  try {
    const view = await TranscriptPage.openFile(page, app, `/e2e/${folder.name}/${session}`, { debug: true });
    await expect(view.notShown).toBeVisible({ timeout: 20000 });
    await expectClean(view, 'by URL');
    const faces = await facesByDescription(view);
    for (const agent of topLevelAgents(capture)) expectFace(faces.get(agent.description), agent, `by URL ${agent.key}`);
  } finally {
    folder.remove();
  }
});

for (const { cli, all } of CLIS) test(`${cli} nested three deep: each level is a card inside its parent, the depth-3 card with its face`, async ({ page, app }) => {
  const capture = all.find((c) => c.name === 'nested');
  const view = await dropped(page, app, capture);
  const agents = Object.fromEntries(capture.manifest.holds.agents.map((a) => [a.key, a]));
  const cardOf = async (description) => {
    const id = await page.locator(`[data-testid="subagent-card"]:has(> .card-head [title="${description}"])`).first()
      .getAttribute('id');
    return view.card(id.replace(/^msg-/, ''));
  };
  for (const [parent, child] of [['lead', 'lexer-worker'], ['lexer-worker', 'checker']]) {
    const card = await cardOf(agents[parent].description);
    await card.expand();
    const inner = await cardOf(agents[child].description);
    expectFace(await inner.face().then((f) => f.face), agents[child], `nested ${child}`);
  }
});

for (const { cli, all } of CLIS) test(`${cli}: a message sent to a running subagent shows inside its card`, async ({ page, app }) => {
  const capture = all.find((c) => c.name === 'send-message');
  const view = await dropped(page, app, capture);
  const [sent] = capture.manifest.holds.messagesSent;
  const card = view.card((await view.topLevelFaces())[0].id);
  await card.expand();
  await expect(card.children).toContainText(sent.message);
});

test('the records not shown are counted, their kinds listed on request', async ({ page, app }) => {
  const view = await dropped(page, app, CLAUDE_CODE.find((c) => c.name === 'parallel-wave'));
  await expect(view.notShown.locator('summary')).toHaveText(/^[\d,]+ records not shown$/);
  await expect(view.notShown.locator('table')).toBeHidden();
  await view.notShown.locator('summary').click();
  await expect(view.notShown.locator('tbody tr').first()).toBeVisible();
  await expect(view.notShown.locator('th')).toContainText(['api-request']);
});
