// The embed contract and live tail behaviour of the transcript (SPEC.md §7–§8):
// a host page pushes messages into an `/embed/view` iframe; a long transcript
// follows its tail while at the bottom and offers "jump to latest" when not.
import { expectEqual, expectNoErrors, serveFile } from '../harness.mjs';
import { session } from '../lib/sessions.mjs';

export default async function (suite) {
  const server = await suite.server([]);

  await suite.test('a host page pushes messages into an embedded transcript without chrome', async () => {
    const messages = session(20, 'h');
    const host = serveFile({ name: 'host.html', text: `<!doctype html><title>host</title><link rel="icon" href="data:,">
      <iframe id="tv" src="/embed/view" style="width:900px;height:600px"></iframe>
      <script>
        const frame = document.getElementById('tv');
        window.pushAll = () => frame.contentWindow.postMessage({ taskview: 'append', messages: ${JSON.stringify(messages)} }, '*');
      </script>` });
    const page = await suite.page();
    await page.goto(`${server.url}${host.slice(1)}`);
    const frame = page.frameLocator('#tv');
    await frame.getByTestId('file-view').waitFor({ timeout: 20000 });
    await page.evaluate(() => window.pushAll());
    await frame.getByTestId('subagent-card').nth(2).waitFor({ timeout: 10000 });
    expectEqual(await frame.getByTestId('subagent-type').allTextContents(),
      ['code-reviewer', 'test-supervisor', 'explorer'], 'pushed cards');
    expectEqual(await frame.getByTestId('app-header').count(), 0, 'no chrome in embed');
    expectNoErrors(page);
  });

  await suite.test('messages from another window are ignored', async () => {
    const page = await suite.page();
    await page.goto(`${server.url}embed/view`);
    await page.getByTestId('file-view').waitFor({ timeout: 20000 });
    const sent = await page.evaluate((ms) => {
      // A child frame is neither the page nor its host: its messages must not be applied.
      const child = document.body.appendChild(document.createElement('iframe'));
      window.dispatchEvent(new MessageEvent('message',
        { data: { taskview: 'append', messages: ms }, source: child.contentWindow }));
      return child.contentWindow !== null;
    }, session(5, 'x'));
    expectEqual(sent, true, 'child frame exists');
    await page.waitForTimeout(300);
    expectEqual(await page.locator('[data-testid=subagent-card]').count(), 0, 'cards from a foreign source');
  });

  await suite.test('a long transcript follows its tail and offers "jump to latest" when scrolled up', async () => {
    const src = serveFile({ name: 'long.json', text: JSON.stringify({ messages: session(2000) }) });
    const page = await suite.page({ viewport: { width: 1000, height: 700 } });
    await page.goto(`${server.url}view?src=${encodeURIComponent(src)}`);
    await page.locator('.row-slot').first().waitFor({ timeout: 30000 });
    const rendered = await page.locator('.row-slot').count();
    if (rendered > 120) throw new Error(`virtualization renders ${rendered} rows of a 2000-message session`);
    await page.getByTestId('jump-to-latest').click();
    await page.locator('#msg-m1999').waitFor({ timeout: 10000 });
    await page.evaluate((ms) => window.postMessage({ taskview: 'append', messages: ms }, '*'), session(20, 'tail', 3000));
    await page.locator('#msg-tail3019').waitFor({ state: 'visible', timeout: 10000 });
    await page.getByTestId('jump-to-latest').waitFor({ state: 'detached', timeout: 5000 });
    await page.mouse.move(500, 300);
    await page.mouse.wheel(0, -3000);
    await page.getByTestId('jump-to-latest').waitFor({ timeout: 5000 });
    await page.evaluate((ms) => window.postMessage({ taskview: 'append', messages: ms }, '*'), session(20, 'more', 4000));
    await page.waitForTimeout(300);
    expectEqual(await page.locator('#msg-more4019').isVisible().catch(() => false), false, 'no jump while reading above');
    await page.getByTestId('jump-to-latest').click();
    await page.locator('#msg-more4019').waitFor({ state: 'visible', timeout: 10000 });
    expectNoErrors(page);
  });

  await suite.test('the reading position holds while a card above the viewport grows', async () => {
    const src = serveFile({ name: 'anchor.json', text: JSON.stringify({ messages: session(2000) }) });
    const page = await suite.page({ viewport: { width: 1000, height: 700 } });
    await page.goto(`${server.url}view?src=${encodeURIComponent(src)}#msg-m7`);
    await page.locator('#msg-m7').waitFor({ state: 'visible', timeout: 30000 });
    // Put the open card just above the viewport (still inside the rendered margin).
    await page.evaluate(() => {
      const scroller = document.querySelector('[data-testid=transcript]');
      const card = document.getElementById('msg-m4').getBoundingClientRect();
      scroller.scrollTop += card.bottom - scroller.getBoundingClientRect().top + 40;
    });
    await page.waitForTimeout(400);
    const anchor = await page.evaluate(() => {
      const slot = [...document.querySelectorAll('.row-slot')].find((s) => s.getBoundingClientRect().top > 60);
      return { key: slot.dataset.rowKey, top: slot.getBoundingClientRect().top };
    });
    const children = Array.from({ length: 30 }, (_, i) => ({
      id: `grow${i}`, session_id: 'sess-bench', turn_id: 'turn-m1', type: 'tool_read', author_type: 'agent',
      content: `Read extra${i}.rs`, created_at: '2026-08-03T10:00:18.500Z', updated_at: '2026-08-03T10:00:18.500Z',
      metadata: { tool_call_id: `tc-grow${i}`, parent_tool_call_id: 'tc-m4', title: `Read extra${i}.rs`, status: 'complete' },
    }));
    await page.evaluate((ms) => window.postMessage({ taskview: 'append', messages: ms }, '*'), children);
    await page.locator('#msg-grow29').waitFor({ state: 'attached', timeout: 10000 });
    await page.waitForTimeout(400);
    const after = await page.evaluate((key) =>
      document.querySelector(`.row-slot[data-row-key="${key}"]`)?.getBoundingClientRect().top, anchor.key);
    if (after === undefined || Math.abs(after - anchor.top) > 2) {
      throw new Error(`row ${anchor.key} moved from ${anchor.top} to ${after}`);
    }
    expectNoErrors(page);
  });
}
