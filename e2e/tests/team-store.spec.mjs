// A team's board on PostgreSQL (docs/behaviour.md §7 "A team's board", docs/team-store.md):
// a `taskview serve --recordings --store` of a real capture writes to a real
// PostgreSQL, and a reader (`taskview serve --store` alone) shows the writer's
// task on its board, signed with its machine, and its transcript, paged from
// the database, renders the same rows as the writer's own. With the database
// stopped the reader's board says `store unreachable`, and stops saying it
// once the database is back; so does a reader's task page, opened while the
// database is away or left open while it goes.
import { test, expect } from '../lib/fixtures.mjs';
import { ROOT } from '../lib/files.mjs';
import { Postgres } from '../lib/postgres.mjs';
import { BoardPage } from '../pages/board.mjs';
import { TranscriptPage } from '../pages/transcript.mjs';
import path from 'node:path';

const CAPTURE = path.join(ROOT, 'tests/fixtures/captures/claude-code-2.1.332/slow-wave/projects');

const it = test.extend({
  // One cluster per test, removed after it.
  postgres: async ({}, use) => {
    const cluster = await Postgres.start();
    await use(cluster);
    cluster.remove();
  },
});

it.use({ viewport: { width: 1280, height: 1600 } });

it("a reader's board lists another machine's task and pages its transcript from the store",
  async ({ page, openPage, serve, postgres }, testInfo) => {
    const url = postgres.database();
    const writer = await serve(['--recordings', CAPTURE, '--otlp-dir', testInfo.outputPath('otlp'),
      '--store', url, '--machine', 'ana-laptop', '--person', 'ana']);
    const reader = await serve(['--store', url]);
    const { tasks: [own] } = await writer.json('api/v1/workflows/wf-recordings/snapshot');
    const taskId = `ana-laptop~${own.id}`;

    const board = await BoardPage.open(page, reader);
    await expect(board.name).toHaveText('Team board');
    // The writer may retitle its task once it has read the session whole: the reader follows.
    await expect.poll(async () => {
      const { tasks: [now] } = await writer.json('api/v1/workflows/wf-recordings/snapshot');
      return (await board.card(taskId).title.textContent()) === now.title;
    }, { timeout: 15000 }).toBe(true);
    await page.screenshot({ path: testInfo.outputPath('team-board.png') });

    await board.card(taskId).link.click();
    await expect(page).toHaveURL(new RegExp(`/task/${taskId}$`));
    const fromStore = await TranscriptPage.openTask(page, reader, taskId);
    const fromFiles = await TranscriptPage.openTask(await openPage(), writer, own.id);
    const rows = await fromStore.sameRowsAs(fromFiles, 'the transcript from the store is the files\' one');
    expect(rows.length).toBeGreaterThan(10);
  });

it('with its database stopped a reader says store unreachable, and not once it is back',
  async ({ page, serve, postgres }, testInfo) => {
    const url = postgres.database();
    const reader = await serve(['--store', url]);
    const board = await BoardPage.open(page, reader);
    const notice = page.getByTestId('board-notice');
    await expect(board.name).toHaveText('Team board');
    await expect(notice).toHaveCount(0);
    postgres.stop();
    await expect(notice).toHaveText('store unreachable', { timeout: 15000 });
    await expect(notice).toHaveAttribute('role', 'status');
    await page.screenshot({ path: testInfo.outputPath('store-unreachable.png') });
    postgres.start();
    await expect(notice).toHaveCount(0, { timeout: 15000 });
  });

it("a reader's task page says store unreachable too, opened while the database is away or left open",
  async ({ page, serve, postgres, errors }, testInfo) => {
    // While the database is away the reader cannot page the transcript: its reads fail (500).
    errors.allow(page, /status of 500/);
    const url = postgres.database();
    const writer = await serve(['--recordings', CAPTURE, '--otlp-dir', testInfo.outputPath('otlp'),
      '--store', url, '--machine', 'ana-laptop', '--person', 'ana']);
    const reader = await serve(['--store', url]);
    const { tasks: [own] } = await writer.json('api/v1/workflows/wf-recordings/snapshot');
    const taskId = `ana-laptop~${own.id}`;
    await expect.poll(async () => (await reader.json(`api/v1/tasks/${encodeURIComponent(taskId)}`)).id,
      { timeout: 15000 }).toBe(taskId);

    postgres.stop();
    const task = await TranscriptPage.openTask(page, reader, taskId, { debug: false });
    const notice = page.getByTestId('task-notice');
    await expect(notice).toHaveText('store unreachable', { timeout: 15000 });
    await expect(notice).toHaveAttribute('role', 'status');
    await expect(task.title).not.toHaveText('');
    await page.screenshot({ path: testInfo.outputPath('task-store-unreachable.png') });

    postgres.start();
    await expect(notice).toHaveCount(0, { timeout: 15000 });
    postgres.stop();
    await expect(notice).toHaveText('store unreachable', { timeout: 15000 });
    postgres.start();
    await expect(notice).toHaveCount(0, { timeout: 15000 });
  });
