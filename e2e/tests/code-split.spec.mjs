// The release build's code splitting (docs/behaviour.md §10, `taskview split`): a task
// page's first visit downloads neither the file view (its importers, the
// export) nor the Timeline panel; each is fetched the first time it is shown,
// and works. The exported page (export.spec) inlines the one-module build.
import { test, expect } from '../lib/fixtures.mjs';
import { fanOut } from '../lib/sessions.mjs';
import { Timeline } from '../pages/timeline.mjs';
import { TranscriptPage } from '../pages/transcript.mjs';

/** The wasm files the page fetched, by name. */
function wasmFetched(page) {
  const names = [];
  page.on('request', (r) => {
    const path = new URL(r.url()).pathname;
    if (path.endsWith('.wasm')) names.push(path.split('/').pop());
  });
  return names;
}

const split = (names, part) => names.filter((n) => n.startsWith(`split_${part}`));

test('a task page\'s first visit fetches neither the file view nor the Timeline; opening the Timeline fetches it once',
  async ({ page, app }) => {
    const fetched = wasmFetched(page);
    const view = await TranscriptPage.openTask(page, app, 'task-demo-review', { debug: false });
    await view.subagentCards.first().waitFor();
    expect(fetched.filter((n) => n.endsWith('_bg.wasm')), 'the app\'s main module').toHaveLength(1);
    expect(split(fetched, 'file_view_page')).toEqual([]);
    expect(split(fetched, 'live_timeline')).toEqual([]);

    const timeline = new Timeline(page);
    await timeline.open();
    expect(split(fetched, 'live_timeline')).toHaveLength(1);
    await timeline.toggle.click();
    await expect(timeline.panel).toHaveCount(0);
    await timeline.open();
    expect(split(fetched, 'live_timeline'), 'fetched once').toHaveLength(1);
    expect(split(fetched, 'file_view_page')).toEqual([]);
  });

test('the file view fetches its module and shows the file', async ({ page, app, serveFile }) => {
  const fetched = wasmFetched(page);
  const session = fanOut(40);
  const src = serveFile({ name: 'fan-out.json', text: JSON.stringify(session.messages) });
  const view = await TranscriptPage.openFile(page, app, src);
  await view.subagentCards.first().waitFor();
  expect(split(fetched, 'file_view_page')).toHaveLength(1);
  expect(split(fetched, 'live_timeline')).toEqual([]);
});

test('a module the server does not send gives a visible error and a retry that loads it',
  async ({ page, app, errors }) => {
    const timelineModule = '**/split_live_timeline*.wasm';
    await page.route(timelineModule, (route) => route.abort());
    errors.allow(page, /Failed to fetch|ERR_FAILED|net::/);
    const view = await TranscriptPage.openTask(page, app, 'task-demo-review', { debug: false });
    await view.subagentCards.first().waitFor();
    const timeline = new Timeline(page);
    await timeline.toggle.click();
    const error = page.getByTestId('module-error');
    await expect(error).toContainText('Could not load the Timeline');
    await expect(view.subagentCards.first(), 'the transcript stays').toBeVisible();

    await page.unroute(timelineModule);
    await error.getByRole('button', { name: 'Try again' }).click();
    await timeline.bars.first().waitFor();
    await expect(error).toHaveCount(0);
  });

test('pointing at the Timeline toggle fetches its module before the panel opens', async ({ page, app }) => {
  const fetched = wasmFetched(page);
  const view = await TranscriptPage.openTask(page, app, 'task-demo-review', { debug: false });
  await view.subagentCards.first().waitFor();
  const timeline = new Timeline(page);
  await timeline.toggle.hover();
  await expect.poll(() => split(fetched, 'live_timeline').length).toBe(1);
  await expect(timeline.panel).toHaveCount(0);
  await timeline.open();
  expect(split(fetched, 'live_timeline'), 'not fetched again').toHaveLength(1);
});
