// A Collector's file of many sessions in the file view (docs/behaviour.md §7
// "OpenTelemetry"): an OpenTelemetry Collector's file exporter writes the
// telemetry of every session it hears of into one file. Opened in the file
// view (picked, dropped or by ?src=) it is never merged into one transcript:
// the session chooser lists its sessions (title, agent, id, counts) and the
// one picked opens alone. The file is tests/fixtures/captures-otlp/
// collector-file.jsonl: the `nested` runs of Claude Code 2.1.332, qwen-code
// 0.24.4 and Copilot CLI 1.0.102, posts interleaved. qwen-code and Copilot
// CLI ran against the same mock model, so their cards share call ids: merged,
// they would collide.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { test, expect } from '../lib/fixtures.mjs';
import { ROOT } from '../lib/files.mjs';
import { TranscriptPage } from '../pages/transcript.mjs';

const FILE = 'tests/fixtures/captures-otlp/collector-file.jsonl';
const CLAUDE = '2a407dcc-3325-4e19-a288-c62ab8fd64de';
const QWEN = 'b8841d07-1e39-4311-ab9e-7136b8192b4d';
const COPILOT = 'ec361445-0277-443e-b712-b269082f4212';
const CLAUDE_ROOT = 'toolu_01tMPfGUTz5eLVjK7Vbi2MzbUG';
// The root card of both qwen-code's and Copilot CLI's runs.
const MOCK_ROOT = 'call_FonHhQ0PN1j7nw5jcb0q2qgB';

/** The chooser's list once it shows the file's three sessions. */
async function chooserOfThree(page) {
  const chooser = page.getByTestId('session-chooser');
  await expect(chooser.getByRole('heading')).toHaveText('This file holds 3 sessions');
  const choices = chooser.getByTestId('session-choice');
  await expect(choices).toHaveCount(3);
  return choices;
}

test('a picked Collector file lists each session with its agent, title, id and counts, and opens the one picked alone',
  async ({ page, app }) => {
    const view = await new TranscriptPage(page).goto('view', app);
    await view.fileInput.setInputFiles(path.join(ROOT, FILE));
    const choices = await chooserOfThree(page);
    await expect(choices.locator('.session-folder')).toHaveText(['Copilot CLI', 'qwen-code', 'Claude Code']);
    const claude = choices.filter({ hasText: CLAUDE });
    // Its prompt was not sent (redacted): the id heads it.
    await expect(claude.locator('.session-name')).toHaveText(CLAUDE);
    await expect(claude.locator('.session-detail')).toContainText('4 subagents');
    await expect(claude.locator('.session-detail')).toContainText(/\d+ spans · \d+ log records/);
    const qwen = choices.filter({ hasText: QWEN });
    await expect(qwen.locator('.session-name')).toHaveText(/^Audit parser-kit for panics/);
    await expect(qwen.locator('.session-detail')).toContainText(`${QWEN} · 4 subagents`);
    await expect(view.subagentCards, 'nothing opens before a pick').toHaveCount(0);

    await claude.click();
    await expect(view.card(CLAUDE_ROOT).root).toBeVisible();
    await expect(view.dialect).toHaveText('OpenTelemetry (OTLP JSON lines)');
    await expect(view.sourceName).toHaveText(`collector-file.jsonl · ${CLAUDE}`);
    await expect(view.message(MOCK_ROOT), 'no card of another session').toHaveCount(0);

    await page.getByTestId('other-sessions').click();
    await expect(choices).toHaveCount(3);
    await choices.filter({ hasText: COPILOT }).click();
    await expect(view.card(MOCK_ROOT).root).toBeVisible();
    await expect(view.message(CLAUDE_ROOT), 'no card of another session').toHaveCount(0);
    await expect(page.getByTestId('other-sessions')).toHaveText('Other sessions (2)');
  });

test('a Collector file dropped or given by ?src= lists its sessions the same way', async ({ page, app, serveFile }) => {
  const view = await new TranscriptPage(page).goto('view', app);
  await view.fileView.waitFor();
  const text = readFileSync(path.join(ROOT, FILE), 'utf8');
  await view.fileView.evaluate((target, content) => {
    const data = new DataTransfer();
    data.items.add(new File([content], 'otel.jsonl', { type: 'application/json' }));
    target.dispatchEvent(new DragEvent('dragover', { dataTransfer: data, bubbles: true, cancelable: true }));
    target.dispatchEvent(new DragEvent('drop', { dataTransfer: data, bubbles: true, cancelable: true }));
  }, text);
  let choices = await chooserOfThree(page);
  await choices.filter({ hasText: QWEN }).click();
  await expect(view.card(MOCK_ROOT).root).toBeVisible();
  await expect(view.sourceName).toHaveText(`otel.jsonl · ${QWEN}`);

  const src = await serveFile(FILE);
  await TranscriptPage.openFile(page, app, src);
  choices = await chooserOfThree(page);
  await choices.filter({ hasText: CLAUDE }).click();
  await expect(view.card(CLAUDE_ROOT).root).toBeVisible();
  await expect(view.message(MOCK_ROOT)).toHaveCount(0);
});
