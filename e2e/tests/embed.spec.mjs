// The embed contract (docs/behaviour.md §8): a host page pushes messages into an
// `/embed/view` iframe; messages from any other window are ignored.
import { test, expect } from '../lib/fixtures.mjs';
import { session } from '../lib/sessions.mjs';
import { TranscriptPage } from '../pages/transcript.mjs';

test('a host page pushes messages into an embedded transcript without chrome', async ({ page, app, serveFile }) => {
  const messages = session(20, 'h');
  const host = serveFile({ name: 'host.html', text: `<!doctype html><title>host</title><link rel="icon" href="data:,">
    <iframe id="tv" src="/embed/view" style="width:900px;height:600px"></iframe>
    <script>
      const frame = document.getElementById('tv');
      window.pushAll = () => frame.contentWindow.postMessage({ taskview: 'append', messages: ${JSON.stringify(messages)} }, '*');
    </script>` });
  await page.goto(new URL(host, app.url).href);
  const frame = page.frameLocator('#tv');
  await frame.getByTestId('file-view').waitFor();
  await page.evaluate(() => window.pushAll());
  await frame.getByTestId('subagent-card').nth(2).waitFor();
  expect(await frame.getByTestId('subagent-type').allTextContents()).toEqual(['code-reviewer', 'test-supervisor', 'explorer']);
  expect(await frame.getByTestId('app-header').count(), 'chrome in the embed').toBe(0);
});

test('messages from another window are ignored', async ({ page, app }) => {
  const view = await new TranscriptPage(page).goto('embed/view', app);
  await view.fileView.waitFor();
  const sent = await page.evaluate((ms) => {
    // A child frame is neither the page nor its host: its messages must not be applied.
    const child = document.body.appendChild(document.createElement('iframe'));
    window.dispatchEvent(new MessageEvent('message',
      { data: { taskview: 'append', messages: ms }, source: child.contentWindow }));
    return child.contentWindow !== null;
  }, session(5, 'x'));
  expect(sent, 'the child frame exists').toBe(true);
  await page.waitForTimeout(300);
  expect(await view.subagentCards.count(), 'cards from a foreign source').toBe(0);
});
