// A tool call left running when a file ends (docs/behaviour.md §8, "No spinner ever
// turns forever"): in a file nobody writes any more it reads `interrupted · no
// result recorded`, and neither it nor its turn group spins or says `now:`;
// pushed by a host page (a live source), the same call runs, with its spinner.
import { test, expect } from '../lib/fixtures.mjs';
import { TranscriptPage } from '../pages/transcript.mjs';

const at = (s) => new Date(Date.UTC(2026, 7, 3, 10, 0, s)).toISOString();
const message = (id, s, type, content, metadata = {}, author = 'agent') => ({
  id, session_id: 'sess-still', task_id: 'task-still', turn_id: 't1', author_type: author, type, content, metadata,
  created_at: at(s), updated_at: at(s),
});
/** A prompt, a call that ended, and one the file ends before it reported back. */
const MESSAGES = [
  message('u', 0, 'message', 'Build, then run the tests.', {}, 'user'),
  message('built', 1, 'tool_execute', 'cargo build', { tool_call_id: 'tc-built', title: 'cargo build', status: 'complete' }),
  message('tests', 2, 'tool_execute', 'cargo test', { tool_call_id: 'tc-tests', title: 'cargo test', status: 'running' }),
];
/** Calls that said they were under way (`pending`, `in_progress`) and never reported back (docs/behaviour.md §3.4). */
const UNFINISHED = [
  ...MESSAGES,
  message('lint', 3, 'tool_execute', 'cargo clippy', { tool_call_id: 'tc-lint', title: 'cargo clippy', status: 'pending' }),
  message('docs', 4, 'tool_execute', 'cargo doc', { tool_call_id: 'tc-docs', title: 'cargo doc', status: 'in_progress' }),
];

/** The turn group holding both calls, opened; returns it and the two tool rows. */
async function openedGroup(view) {
  const group = view.groups.first();
  await group.waitFor();
  await group.locator('.group-head').click();
  await expect(group.locator('.group-head')).toHaveAttribute('aria-expanded', 'true');
  return {
    group,
    built: group.locator('#msg-built .tool'),
    tests: group.locator('#msg-tests .tool'),
  };
}

test('a tool call left running when a file ends reads interrupted, no result recorded, and nothing spins',
  async ({ page, app, serveFile }) => {
    const src = serveFile({ name: 'still-tools.json', text: JSON.stringify(MESSAGES) });
    const view = await TranscriptPage.openFile(page, app, src, { debug: true });
    const { group, built, tests } = await openedGroup(view);
    await expect(tests).toHaveAttribute('data-state', 'interrupted');
    await expect(tests.locator('.tool-state')).toHaveText('interrupted · no result recorded');
    await expect(built).toHaveAttribute('data-state', 'complete');
    await expect(built.locator('.tool-state')).toHaveText('done');
    await expect(group.locator('.group-head .spinner'), 'the group does not spin').toHaveCount(0);
    await expect(group.getByTestId('turn-group-now')).toHaveCount(0);
    await expect(view.scroller.locator('.spinner'), 'no spinner anywhere').toHaveCount(0);
  });

test('the same tool call pushed live by a host page runs, with its spinner', async ({ page, app }) => {
  const view = await TranscriptPage.openPushed(page, app, MESSAGES);
  const { group, tests } = await openedGroup(view);
  await expect(tests).toHaveAttribute('data-state', 'running');
  await expect(tests.locator('.tool-state')).toHaveText('running');
  await expect(tests.locator('.tool-head .spinner')).toHaveCount(1);
  await expect(group.locator('.group-head .spinner')).toHaveCount(1);
  await expect(group.getByTestId('turn-group-now')).toHaveText('now: cargo test');
});

test('calls left pending or in progress when a file ends read interrupted too, and nothing spins',
  async ({ page, app, serveFile }) => {
    const src = serveFile({ name: 'still-unfinished.json', text: JSON.stringify(UNFINISHED) });
    const view = await TranscriptPage.openFile(page, app, src, { debug: true });
    const { group } = await openedGroup(view);
    for (const id of ['tests', 'lint', 'docs']) {
      const tool = group.locator(`#msg-${id} .tool`);
      await expect(tool, id).toHaveAttribute('data-state', 'interrupted');
      await expect(tool.locator('.tool-state'), id).toHaveText('interrupted · no result recorded');
    }
    await expect(view.scroller.locator('.spinner'), 'no spinner anywhere').toHaveCount(0);
  });

test('pushed live by a host page, the pending and in-progress calls are not cut off', async ({ page, app }) => {
  // No turn of theirs is active, so they settle (docs/behaviour.md §3.4); a
  // live source is never "interrupted".
  const view = await TranscriptPage.openPushed(page, app, UNFINISHED);
  const { group } = await openedGroup(view);
  await expect(group.locator('#msg-tests .tool')).toHaveAttribute('data-state', 'running');
  for (const id of ['lint', 'docs']) {
    const tool = group.locator(`#msg-${id} .tool`);
    await expect(tool, id).toHaveAttribute('data-state', 'settled');
    await expect(tool.locator('.tool-state'), id).not.toContainText('interrupted');
  }
});
