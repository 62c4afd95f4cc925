// Opening transcript files (docs/behaviour.md §2, §8): a file that cannot be fetched
// says why; a local file opens from the picker or by drag and drop, its
// dialect detected.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { test, expect } from '../lib/fixtures.mjs';
import { ROOT } from '../lib/files.mjs';
import { TranscriptPage } from '../pages/transcript.mjs';

test('a missing file shows a clear error with the reason', async ({ page, app, errors }) => {
  errors.allow(page, /status of 404/);
  const view = await TranscriptPage.openFile(page, app, '/e2e/does-not-exist.json');
  await view.loadError.waitFor();
  expect(await view.loadError.textContent()).toMatch(/404|not found|failed/i);
});

test('a local file opens from the file picker, its dialect detected', async ({ page, app }) => {
  const view = await new TranscriptPage(page).goto('view', app);
  await view.fileInput.setInputFiles(path.join(ROOT, 'tests/fixtures/dialects/gadget-turns.json'));
  await view.subagentCards.first().waitFor();
  expect(await view.dialect.textContent()).toBe('gadget turns');
  expect(await view.subagentTypes.first().textContent()).toBe('reviewer');
});

test('a local file dropped on the view opens the same way', async ({ page, app }) => {
  const view = await new TranscriptPage(page).goto('view', app);
  await view.fileView.waitFor();
  const text = readFileSync(path.join(ROOT, 'tests/fixtures/session-review-wave.json'), 'utf8');
  await view.fileView.evaluate((target, content) => {
    const data = new DataTransfer();
    data.items.add(new File([content], 'wave.json', { type: 'application/json' }));
    target.dispatchEvent(new DragEvent('dragover', { dataTransfer: data, bubbles: true, cancelable: true }));
    target.dispatchEvent(new DragEvent('drop', { dataTransfer: data, bubbles: true, cancelable: true }));
  }, text);
  await view.subagentCards.nth(1).waitFor();
  expect(await view.subagentTypes.allTextContents()).toEqual(['code-reviewer', 'test-supervisor']);
  expect(await view.loadStatus.textContent()).toContain('wave.json');
});
