// A card's header on a phone (390 px, light and dark): the status and the
// tool-call count (docs/behaviour.md §3.1 items 4 and 5) stay whole and inside the
// card; when one line cannot hold them they wrap below the type and the
// description rather than being cut off. The Claude Code `interrupted` story
// opened by URL: two background agents read `interrupted · no result
// recorded`, the longest status a card has.
import { cpSync } from 'node:fs';
import { captures } from '../lib/captures.mjs';
import { filesUnder } from '../lib/drop.mjs';
import { ServedFolder } from '../lib/files.mjs';
import { test, expect } from '../lib/fixtures.mjs';
import { TranscriptPage } from '../pages/transcript.mjs';

const INTERRUPTED = captures('claude-code-2.1.332').find((c) => c.name === 'interrupted');
const AGENTS = INTERRUPTED.manifest.holds.agents.filter((a) => a.status === 'interrupted');

for (const colorScheme of ['light', 'dark']) {
  test.describe(`${colorScheme}, 390 px`, () => {
    test.use({ viewport: { width: 390, height: 900 }, colorScheme });

    test('a background card keeps its status and tool-call count whole and inside the card', async ({ page, app }, testInfo) => {
      expect(AGENTS.length, 'the story leaves agents unsettled').toBeGreaterThan(0);
      const folder = new ServedFolder(`${testInfo.workerIndex}-${testInfo.testId}`);
      cpSync(INTERRUPTED.project, folder.dir, { recursive: true });
      const session = filesUnder(INTERRUPTED.project).map(([rel]) => rel).find((rel) => !rel.includes('/'));
      try {
        await TranscriptPage.openFile(page, app, `/e2e/${folder.name}/${session}`, { debug: true });
        for (const agent of AGENTS) {
          const card = page.locator(`[data-testid="subagent-card"]:has(> .card-head [title="${agent.description}"])`).first();
          const head = card.locator(':scope > .card-head');
          const count = head.getByTestId('subagent-child-count');
          const status = head.getByTestId('subagent-status');
          await expect(count, agent.key).toBeVisible();
          await expect(count, agent.key).toHaveText(/^\d+ tool calls?$/);
          await expect(status, agent.key).toHaveText('interrupted · no result recorded');
          const box = await head.boundingBox();
          for (const [what, part] of [['count', count], ['status', status], ['description', head.getByTestId('subagent-description')]]) {
            const b = await part.boundingBox();
            expect(b, `${agent.key}: ${what} laid out`).not.toBeNull();
            expect(b.x, `${agent.key}: ${what} starts inside the header`).toBeGreaterThanOrEqual(box.x - 0.5);
            expect(b.x + b.width, `${agent.key}: ${what} ends inside the header`).toBeLessThanOrEqual(box.x + box.width + 0.5);
            expect(b.width, `${agent.key}: ${what} has room`).toBeGreaterThan(20);
          }
          // Not cut by an ellipsis or an overflow: its text is all there.
          const cut = await count.evaluate((el) => el.scrollWidth > el.clientWidth);
          expect(cut, `${agent.key}: the count is not clipped`).toBe(false);
          const headOverflows = await head.evaluate((el) => el.scrollWidth > el.clientWidth + 1);
          expect(headOverflows, `${agent.key}: nothing overflows the header`).toBe(false);
        }
      } finally {
        folder.remove();
      }
    });
  });
}
