// `taskview serve --recordings DIR` (docs/user-guide.md "Opening transcript files"): every
// dialect fixture is a task whose session's messages, read back over HTTP by
// the kandev list importer, render the same cards as the file itself; a Claude
// Code session split into a main file and subagents/agent-<id>.jsonl too.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { test, expect } from '../lib/fixtures.mjs';
import { ROOT } from '../lib/files.mjs';
import { TranscriptPage } from '../pages/transcript.mjs';
import { CLAUDE, CLAUDE_AGENT, DIALECTS, expectDialect, expectExpanded, expectFaces }
  from '../fixtures/dialect-cards.mjs';

/**
 * Fills `dir` as a recordings folder: copies of the fixtures, plus the Claude
 * Code session split the way newer Claude Code writes it (main file +
 * subagents/agent-<id>.jsonl).
 */
function fillRecordings(dir) {
  mkdirSync(dir, { recursive: true });
  for (const f of DIALECTS) writeFileSync(path.join(dir, path.basename(f.file)), readFileSync(path.join(ROOT, f.file)));
  const lines = readFileSync(path.join(ROOT, CLAUDE.file), 'utf8').split('\n').filter((l) => l.trim());
  const sidechain = lines.filter((l) => JSON.parse(l).isSidechain === true);
  if (sidechain.length !== 8) throw new Error(`expected the fixture's 8 sidechain records, found ${sidechain.length}`);
  writeFileSync(path.join(dir, 'claude-split.jsonl'), `${lines.filter((l) => !sidechain.includes(l)).join('\n')}\n`);
  mkdirSync(path.join(dir, 'claude-split', 'subagents'), { recursive: true });
  writeFileSync(path.join(dir, 'claude-split', 'subagents', `agent-${CLAUDE_AGENT}.jsonl`), `${sidechain.join('\n')}\n`);
}

/** The transcript of recording `slug`, read through its session's messages. */
const openRecording = (page, server, slug) => TranscriptPage.openFile(page, server,
  `/api/v1/task-sessions/sess-rec-${slug}/messages?limit=1000`);

const it = test.extend({
  // A `taskview serve --recordings` of its own folder (in the test's output
  // folder, which outlives the server), per test.
  recordings: async ({ serve }, use, testInfo) => {
    const folder = testInfo.outputPath('recordings');
    fillRecordings(folder);
    await use({ folder, server: await serve(['--recordings', folder]) });
  },
});

it.use({ viewport: { width: 1280, height: 2400 } });

it('every fixture in the recordings folder is a task; subagent files are not', async ({ recordings }) => {
  const snapshot = await recordings.server.json('api/v1/workflows/wf-recordings/snapshot');
  expect(snapshot.tasks.map((t) => t.id).sort())
    .toEqual(['rec-claude-split-jsonl', ...DIALECTS.map((f) => `rec-${f.slug}`)].sort());
});

for (const fixture of DIALECTS) {
  it(`${path.basename(fixture.file)} as a recording: its session's messages render the same cards`,
    async ({ page, recordings }) => {
      const view = await openRecording(page, recordings.server, fixture.slug);
      await expectDialect(view, 'kandev message list');
      await expectFaces(view, fixture);
      await expectExpanded(view, fixture);
    });
}

it('a Claude Code session split into main file + subagents/agent-<id>.jsonl renders the same card',
  async ({ page, recordings }) => {
    const view = await openRecording(page, recordings.server, 'claude-split-jsonl');
    await expectDialect(view, 'kandev message list');
    await expectFaces(view, CLAUDE);
    await expectExpanded(view, CLAUDE);
  });

it('the split session without its subagent file says "transcript not loaded" and keeps its metrics',
  async ({ page, app, recordings, serveFile, errors }) => {
    // The subagent file the session names is fetched beside it, and is not there.
    errors.allow(page, /status of 404/);
    const alone = serveFile({
      name: 'claude-main-only.jsonl',
      text: readFileSync(path.join(recordings.folder, 'claude-split.jsonl'), 'utf8'),
    });
    const view = await TranscriptPage.openFile(page, app, alone);
    await expectDialect(view, 'Claude Code session JSONL');
    const [card] = await view.topLevelFaces();
    expect(card.id).toBe(CLAUDE.cards[0].id);
    expect(card.face, 'face without the subagent file').toEqual({
      ...CLAUDE.cards[0].face,
      childCount: null,
      // without children the reported 3 tool uses are shown; the model came from the child records
      chips: [['duration', '52.3s'], ['tokens', '24.8k tokens'], ['tools', '3 tools']],
      notLoaded: true,
    });
    expect(errors.of(page), 'one 404, for the missing subagent file').toEqual([expect.stringMatching(/status of 404/)]);
  });
