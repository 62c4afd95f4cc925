// The transcript of a finished kandev session opened by URL (SPEC.md §2–§4, §7):
// the two review-wave cards and the groups, expanding, and `#msg-<id>` anchors.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { ROOT, expectEqual, expectNoErrors, serveFile } from '../harness.mjs';

/** The visible face of every card, in order. */
async function cardFaces(page) {
  return page.locator('[data-testid=subagent-card]').evaluateAll((cards) => cards.map((c) => {
    const text = (id) => c.querySelector(`:scope > * [data-testid=${id}], :scope > [data-testid=${id}]`)?.textContent ?? null;
    const chips = [...c.querySelectorAll(':scope > [data-testid=subagent-meta] .chip')]
      .map((chip) => `${chip.dataset.testid.replace('subagent-meta-', '')}=${chip.textContent}`);
    return {
      type: text('subagent-type'), description: text('subagent-description'),
      children: text('subagent-child-count'), summary: text('subagent-result-summary'), chips,
    };
  }));
}

export default async function (suite) {
  const server = await suite.server([]);
  const src = serveFile('tests/fixtures/session-review-wave.json');
  const page = await suite.page({ viewport: { width: 1100, height: 900 } });

  await suite.test('the review wave shows two top-level cards with summaries and chips', async () => {
    await page.goto(`${server.url}view?src=${encodeURIComponent(src)}`);
    await page.getByTestId('subagent-card').nth(1).waitFor({ timeout: 20000 });
    expectEqual(await cardFaces(page), [
      { type: 'code-reviewer', description: 'pass over the closure diff', children: '3 tool calls',
        summary: 'VERDICT: REQUEST_CHANGES',
        chips: ['duration=4m 03s', 'tokens=48.2k tokens', 'model=claude-opus-4-8[1m]'] },
      { type: 'test-supervisor', description: 'review of new invariant tests', children: '2 tool calls',
        summary: 'APPROVE', chips: ['duration=1m 30s', 'tokens=21k tokens', 'tools=5 tools', 'model=claude-sonnet-4-7'] },
    ], 'card faces');
    expectEqual(await page.getByTestId('dialect').textContent(), 'kandev message list', 'dialect');
  });

  await suite.test('groups read "2 tool calls · 1 thought" and "4 tool calls"', async () => {
    expectEqual(await page.getByTestId('turn-group-label').allTextContents(),
      ['2 tool calls · 1 thought', '4 tool calls'], 'group labels');
  });

  await suite.test('clicking a card expands its full result above its children', async () => {
    const card = page.locator('#msg-m013');
    await card.locator('button.card-head').click();
    await card.getByTestId('subagent-result-text').waitFor();
    const result = await card.getByTestId('subagent-result-text').textContent();
    if (!result.includes('VERDICT: REQUEST_CHANGES')) throw new Error(`result: ${result}`);
    expectEqual(await card.locator('.card-children [id^=msg-]').evaluateAll((els) => els.map((e) => e.id)),
      ['msg-m015', 'msg-m017', 'msg-m019'], 'children in order');
    expectEqual(await card.getByTestId('subagent-result-summary').count(), 0, 'no summary when expanded');
    expectEqual(await card.locator('button.card-head').getAttribute('aria-expanded'), 'true', 'aria-expanded');
  });

  await suite.test('card headers work from the keyboard: Enter opens, Space closes', async () => {
    const head = page.locator('#msg-m014 button.card-head');
    await head.focus();
    await page.keyboard.press('Enter');
    await page.locator('#msg-m014 [data-testid=subagent-result-text]').waitFor();
    expectEqual(await head.getAttribute('aria-expanded'), 'true', 'after Enter');
    await page.keyboard.press('Space');
    await page.locator('#msg-m014 [data-testid=subagent-result-text]').waitFor({ state: 'detached' });
    expectEqual(await page.locator('#msg-m014 button.card-head').getAttribute('aria-expanded'), 'false', 'after Space');
  });

  await suite.test('a group expands to its members', async () => {
    const group = page.getByTestId('turn-group').nth(1);
    await group.locator('button').click();
    await page.locator('#msg-m012').waitFor();
    expectEqual(await group.locator('[id^=msg-]').evaluateAll((els) => els.map((e) => e.id)),
      ['msg-m009', 'msg-m010', 'msg-m011', 'msg-m012'], 'group members');
  });

  await suite.test('opening #msg-<child id> expands its card and shows the child', async () => {
    const fresh = await suite.page({ viewport: { width: 1100, height: 500 } });
    await fresh.goto(`${server.url}view?src=${encodeURIComponent(src)}#msg-m018`);
    const child = fresh.locator('#msg-m018');
    await child.waitFor({ state: 'visible', timeout: 20000 });
    if (!(await child.isVisible())) throw new Error('child not visible');
    expectEqual(await fresh.locator('#msg-m014 button.card-head').getAttribute('aria-expanded'), 'true', 'card open');
    const inView = await child.evaluate((el) => {
      const r = el.getBoundingClientRect();
      return r.bottom > 0 && r.top < window.innerHeight;
    });
    expectEqual(inView, true, 'scrolled into view');
    expectNoErrors(fresh);
  });

  await suite.test('a missing file shows a clear error with the reason', async () => {
    const broken = await suite.page();
    await broken.goto(`${server.url}view?src=/e2e/does-not-exist.json`);
    await broken.getByTestId('load-error').waitFor({ timeout: 20000 });
    const text = await broken.getByTestId('load-error').textContent();
    if (!/404|not found|failed/i.test(text)) throw new Error(`error text: ${text}`);
  });

  await suite.test('a local file opens from the file picker, its dialect detected', async () => {
    const picker = await suite.page();
    await picker.goto(`${server.url}view`);
    await picker.getByTestId('file-input').setInputFiles(path.join(ROOT, 'tests/fixtures/dialects/gadget-turns.json'));
    await picker.getByTestId('subagent-card').first().waitFor({ timeout: 20000 });
    expectEqual(await picker.getByTestId('dialect').textContent(), 'gadget turns', 'dialect');
    expectEqual(await picker.getByTestId('subagent-type').first().textContent(), 'reviewer', 'first card type');
    expectNoErrors(picker);
  });

  await suite.test('a local file dropped on the view opens the same way', async () => {
    const dropped = await suite.page();
    await dropped.goto(`${server.url}view`);
    await dropped.getByTestId('file-view').waitFor({ timeout: 20000 });
    const text = readFileSync(path.join(ROOT, 'tests/fixtures/session-review-wave.json'), 'utf8');
    await dropped.evaluate((content) => {
      const data = new DataTransfer();
      data.items.add(new File([content], 'wave.json', { type: 'application/json' }));
      const view = document.querySelector('[data-testid=file-view]');
      view.dispatchEvent(new DragEvent('dragover', { dataTransfer: data, bubbles: true, cancelable: true }));
      view.dispatchEvent(new DragEvent('drop', { dataTransfer: data, bubbles: true, cancelable: true }));
    }, text);
    await dropped.getByTestId('subagent-card').nth(1).waitFor({ timeout: 20000 });
    expectEqual(await dropped.getByTestId('subagent-type').allTextContents(), ['code-reviewer', 'test-supervisor'], 'cards');
    expectEqual((await dropped.getByTestId('load-status').textContent()).includes('wave.json'), true, 'source name');
    expectNoErrors(dropped);
  });

  await suite.test('the page logged no errors', async () => expectNoErrors(page));
}
