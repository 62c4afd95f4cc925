// The live tail of a long transcript (docs/behaviour.md §7): it follows its tail while
// at the bottom, offers "jump to latest" when not, and keeps the reading
// position when a card above the viewport grows. Messages arrive through the
// embed contract (postMessage).
import { test, expect } from '../lib/fixtures.mjs';
import { session } from '../lib/sessions.mjs';
import { TranscriptPage } from '../pages/transcript.mjs';

test.use({ viewport: { width: 1000, height: 700 } });

test('a long transcript follows its tail and offers "jump to latest" when scrolled up', async ({ page, app, serveFile }) => {
  const src = serveFile({ name: 'long.json', text: JSON.stringify({ messages: session(2000) }) });
  const view = await TranscriptPage.openFile(page, app, src);
  await view.rows.first().waitFor({ timeout: 30000 });
  const rendered = await view.rows.count();
  expect(rendered, 'rows rendered of a 2000-message session (virtualized)').toBeLessThanOrEqual(120);
  await view.jumpToLatest.click();
  await view.message('m1999').waitFor({ timeout: 10000 });
  await view.append(session(20, 'tail', 3000));
  await view.message('tail3019').waitFor({ state: 'visible', timeout: 10000 });
  await view.jumpToLatest.waitFor({ state: 'detached', timeout: 5000 });
  await page.mouse.move(500, 300);
  await page.mouse.wheel(0, -3000);
  await view.jumpToLatest.waitFor({ timeout: 5000 });
  await view.append(session(20, 'more', 4000));
  await page.waitForTimeout(300);
  expect(await view.message('more4019').isVisible().catch(() => false), 'jumped while reading above').toBe(false);
  await view.jumpToLatest.click();
  await view.message('more4019').waitFor({ state: 'visible', timeout: 10000 });
});

test('the reading position holds while a card above the viewport grows', async ({ page, app, serveFile }) => {
  const src = serveFile({ name: 'anchor.json', text: JSON.stringify({ messages: session(2000) }) });
  const view = await TranscriptPage.openFile(page, app, src, { hash: '#msg-m7' });
  await view.message('m7').waitFor({ state: 'visible', timeout: 30000 });
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
  await view.append(children);
  await view.message('grow29').waitFor({ state: 'attached', timeout: 10000 });
  await page.waitForTimeout(400);
  const after = await page.evaluate((key) =>
    document.querySelector(`.row-slot[data-row-key="${key}"]`)?.getBoundingClientRect().top, anchor.key);
  expect(after, `row ${anchor.key} on screen`).not.toBeUndefined();
  expect(Math.abs(after - anchor.top), `row ${anchor.key} moved from ${anchor.top} to ${after}`).toBeLessThanOrEqual(2);
});
