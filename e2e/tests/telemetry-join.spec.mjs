// One task from two sources (docs/behaviour.md §7 "OpenTelemetry",
// docs/operating.md "Agents on other machines: OpenTelemetry in"): a real
// Claude Code run whose session file is in the recordings folder and whose
// telemetry is posted to the server is one task on the board, and its
// transcript's cards show what only telemetry knows (cost, time to first
// token). The run is the parallel-wave capture of Claude Code 2.1.332 with
// telemetry on (tests/fixtures/captures-otlp).
import { cpSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { test, expect } from '../lib/fixtures.mjs';
import { ROOT } from '../lib/files.mjs';
import { eventually } from '../lib/poll.mjs';
import { BoardPage } from '../pages/board.mjs';
import { TranscriptPage } from '../pages/transcript.mjs';

const CAPTURE = path.join(ROOT, 'tests/fixtures/captures-otlp/claude-code-2.1.332/parallel-wave');
const SESSION = '6fa5c0d4-04e5-4887-8932-0fb7797b4a08';

/** Posts every request of the run's telemetry to `server`, as it arrived. */
async function postTelemetry(server) {
  const dir = path.join(CAPTURE, 'otlp');
  const posts = readFileSync(path.join(dir, 'index.jsonl'), 'utf8').split('\n').filter((l) => l.trim());
  for (const line of posts) {
    const post = JSON.parse(line);
    const response = await fetch(`${server.url}v1/${post.signal}`, {
      method: 'POST',
      headers: { ...server.auth, 'content-type': 'application/json' },
      body: readFileSync(path.join(dir, post.file)),
    });
    expect(response.status, `${post.file} accepted`).toBe(200);
  }
}

test('a watched session and its telemetry are one task whose cards show their cost',
  async ({ page, serve }, testInfo) => {
    const recordings = testInfo.outputPath('recordings');
    cpSync(path.join(CAPTURE, 'projects'), recordings, { recursive: true });
    const server = await serve(['--recordings', recordings, '--otlp-dir', testInfo.outputPath('otlp')]);
    const board = await BoardPage.open(page, server);
    await expect(page.getByTestId('task-card')).toHaveCount(1);
    await postTelemetry(server);
    const snapshot = await eventually(async () => {
      const s = await server.json('api/v1/workflows/wf-recordings/snapshot');
      return s.tasks.length === 1 && s.tasks[0].description.includes(' + telemetry ') && s;
    }, 'the telemetry to join the session\'s task');
    const task = snapshot.tasks[0];
    expect(task.description).toContain(`${SESSION}.jsonl`);
    await expect(page.getByTestId('task-card'), 'one task, never two').toHaveCount(1);

    await board.card(task.id).link.click();
    await page.waitForURL(`**/task/${task.id}`);
    const transcript = new TranscriptPage(page);
    await transcript.subagentCards.first().waitFor();
    expect(await transcript.subagentCards.count(), 'the transcript\'s cards').toBe(4);
    const costs = transcript.subagentCards.locator(':scope > [data-testid="subagent-meta"] > [data-testid="subagent-meta-cost"]');
    await expect(costs).toHaveCount(4);
    for (const text of await costs.allTextContents()) expect(text).toMatch(/^\$0\.0\d\d$/);
    const ttft = transcript.subagentCards.first()
      .locator(':scope > [data-testid="subagent-meta"] > [data-testid="subagent-meta-ttft"]');
    await expect(ttft).toHaveText(/^TTFT \d/);
  });
