// The Timeline of every subagent run (docs/user-guide.md "The Timeline"), end
// to end: one lane per run on one time axis, the concurrency curve's peak, the
// critical path, getting around (keyboard, show in timeline, search, zoom, the
// minimap, the table), a DOM of only the rows in view, live updates, a phone's
// sheet, the board chip's elapsed bars, and the `?debug` hook, on a generated
// 2,000-message fan-out (40 subagents, 3 with a nested one); and a real
// capture's slow wave drawn as its runs lived; and a live /task/… page, its
// runs closing as they settle.
import { captures } from '../lib/captures.mjs';
import { dropFolder, filesUnder } from '../lib/drop.mjs';
import { test, expect } from '../lib/fixtures.mjs';
import { eventually } from '../lib/poll.mjs';
import { fanOut } from '../lib/sessions.mjs';
import { BoardPage } from '../pages/board.mjs';
import { ChipPopover, Search } from '../pages/fanout.mjs';
import { Timeline } from '../pages/timeline.mjs';
import { TranscriptPage } from '../pages/transcript.mjs';

const FAN_OUT = fanOut(2000);
const byId = new Map(FAN_OUT.messages.map((m) => [m.id, m]));

/**
 * `/view?debug&src=` of `session` (the generated fan-out by default), its
 * timeline open (`embed`: `/embed/view`; `pushed`: its messages pushed by
 * the host page, a live source, where a file opened is still, docs/behaviour.md §8).
 */
async function openTimeline(page, app, serveFile, session = FAN_OUT, { embed = false, pushed = false } = {}) {
  const src = pushed ? null : serveFile({ name: 'fan-out.json', text: JSON.stringify(session.messages) });
  const view = pushed
    ? await TranscriptPage.openPushed(page, app, session.messages, { embed })
    : await TranscriptPage.openFile(page, app, src, { debug: true, embed });
  await view.subagentCards.first().waitFor();
  const timeline = new Timeline(page);
  await timeline.open();
  return { view, timeline };
}

/** The most runs of `runs` going at once (an open run goes on for ever). */
function mostAtOnce(runs) {
  const moments = runs.filter((r) => r.end_ms === null || r.end_ms > r.start_ms)
    .flatMap((r) => [[r.start_ms, 1], ...(r.end_ms === null ? [] : [[r.end_ms, -1]])])
    .sort((a, b) => a[0] - b[0] || a[1] - b[1]);
  let now = 0;
  let most = 0;
  for (const [, delta] of moments) { now += delta; most = Math.max(most, now); }
  return most;
}

test('one lane per subagent run, keyed by its message, nested runs under their parent, on the session\'s axis',
  async ({ page, app, serveFile }) => {
    const { timeline } = await openTimeline(page, app, serveFile);
    const { runs, peak } = await timeline.snapshot();
    expect(runs.map((r) => [r.id, r.depth])).toEqual(FAN_OUT.subagents.map((s) => [s.id, s.parent ? 1 : 0]));
    expect(runs.map((r) => r.lane)).toEqual(runs.map((_, i) => i));
    for (const run of runs) {
      const payload = byId.get(run.id).metadata.normalized.subagent_task;
      expect(run.start_ms, run.id).toBe(Date.parse(byId.get(run.id).created_at));
      const roster = FAN_OUT.subagents.find((s) => s.id === run.id);
      if (roster.status === 'running') {
        expect([run.end_ms, run.status], run.id).toEqual([null, 'running']);
      } else if (payload.duration_ms) {
        expect(run.end_ms, run.id).toBe(run.start_ms + payload.duration_ms);
      }
      if (roster.status === 'failed') expect(run.status, run.id).toBe('failed');
    }
    expect(peak).toBe(mostAtOnce(runs));
    await expect(timeline.panel.getByTestId('timeline-heading')).toHaveText(`${runs.length} runs · at most ${peak} at once`);
  });

test('an embedded view has the same timeline', async ({ page, app, serveFile }) => {
  const { timeline } = await openTimeline(page, app, serveFile, FAN_OUT, { embed: true });
  const { runs } = await timeline.snapshot();
  expect(runs.map((r) => r.id)).toEqual(FAN_OUT.subagents.map((s) => s.id));
  await expect(timeline.bar(runs[0].id)).toBeVisible();
});

test('bars are as long as their runs and start where they started', async ({ page, app, serveFile }) => {
  const { timeline } = await openTimeline(page, app, serveFile);
  const { runs } = await timeline.snapshot();
  const drawn = new Map((await timeline.drawn()).map(([id, x, w]) => [id, { x, w }]));
  const settled = runs.filter((r) => r.end_ms !== null && r.depth === 0 && drawn.has(r.id)).slice(0, 6);
  expect(settled.length).toBeGreaterThan(3);
  const [a] = settled;
  const scale = drawn.get(a.id).w / (a.end_ms - a.start_ms);
  for (const r of settled) {
    expect(Math.abs(drawn.get(r.id).w - (r.end_ms - r.start_ms) * scale), r.id).toBeLessThan(2.5);
    expect(Math.abs(drawn.get(r.id).x - drawn.get(a.id).x - (r.start_ms - a.start_ms) * scale), r.id).toBeLessThan(2.5);
  }
});

test('a captured slow wave: bars as long as the runs lived, the curve\'s peak the number that overlapped',
  async ({ page, app }) => {
    // Claude Code 2.1.332: four background agents launched 1.5 s apart with
    // scripted lifetimes; the manifest holds when the harness saw each start and end.
    const wave = captures('claude-code-2.1.332').find((c) => c.name === 'slow-wave');
    const seen = wave.manifest.holds.agents
      .map((a) => wave.manifest.timeline.observed[a.key])
      .map((o) => ({ start_ms: o.launched, end_ms: o.ended }))
      .sort((a, b) => a.start_ms - b.start_ms);
    const view = await new TranscriptPage(page).goto('view?debug', app);
    await dropFolder(view, wave.slug, filesUnder(wave.project));
    await expect(view.subagentCards).toHaveCount(seen.length, { timeout: 20000 });
    const timeline = new Timeline(page);
    await timeline.open();
    const { runs, peak } = await timeline.snapshot();
    const drawn = new Map((await timeline.drawn()).map(([id, x, w]) => [id, { x, w }]));
    const bars = [...runs].sort((a, b) => a.start_ms - b.start_ms);
    expect(bars.length, 'one bar per run').toBe(seen.length);
    // The scale of the axis, from the longest run.
    const longest = seen.reduce((l, s, i) => (s.end_ms - s.start_ms > l.life ? { i, life: s.end_ms - s.start_ms } : l), { life: 0 });
    const scale = drawn.get(bars[longest.i].id).w / longest.life;
    for (const [i, s] of seen.entries()) {
      const life = s.end_ms - s.start_ms;
      // The CLI's files and the harness's server see a run end a few
      // hundred milliseconds apart: within a twentieth of its life.
      const bar = bars[i];
      expect(bar.end_ms, bar.id).not.toBeNull();
      expect(Math.abs(bar.end_ms - bar.start_ms - life), `${bar.id} lived ${life} ms`).toBeLessThanOrEqual(life / 20);
      expect(Math.abs(drawn.get(bar.id).w - life * scale), `${bar.id} drawn in proportion`).toBeLessThanOrEqual(life * scale / 20 + 2);
    }
    expect(mostAtOnce(seen), 'the scenario\'s four overlap').toBe(4);
    expect(peak).toBe(mostAtOnce(seen));
    await expect(timeline.peak).toHaveText(`peak ${peak}`);
  });

test('failed and running runs say so in words as well as in their look', async ({ page, app, serveFile }) => {
  const { timeline } = await openTimeline(page, app, serveFile, FAN_OUT, { pushed: true });
  await expect(timeline.bar('sa3')).toHaveAttribute('data-status', 'failed');
  await expect(timeline.bar('sa3')).toContainText('failed');
  await expect(timeline.bar('sa4')).toHaveAttribute('data-status', 'running');
  await expect(timeline.bar('sa4')).toContainText('running');
  await expect(timeline.bar('sa4')).toHaveClass(/\bopen\b/);
  await expect(timeline.bar('sa0')).not.toContainText(/failed|running/);
  await expect(timeline.bar('sa0')).toHaveAccessibleName(/^code-reviewer: part 0 of the codebase, 1m 00s · 10k, 0:01 to 1:01, 10k tokens/);
});

test('in a file nobody writes, a run that never reported back says interrupted, not running', async ({ page, app, serveFile }) => {
  const { timeline } = await openTimeline(page, app, serveFile);
  await expect(timeline.bar('sa4')).toHaveAttribute('data-status', 'running');
  await expect(timeline.bar('sa4')).toHaveAttribute('data-state', 'interrupted');
  await expect(timeline.bar('sa4')).toContainText('interrupted · no result recorded');
  await expect(timeline.bar('sa4')).not.toContainText(/\brunning\b/);
  await expect(timeline.bar('sa4')).toHaveAccessibleName(/^code-reviewer: part 4 of the codebase, [^,]* interrupted · no result recorded, /);
  // It did not go on to now: it ends where the file does, drawn closed, and no now line shows.
  await expect(timeline.bar('sa4')).toHaveAccessibleName(/, \d+:\d\d to the file's end \(\d+:\d\d\)(, |$)/);
  await expect(timeline.bar('sa4')).not.toHaveAccessibleName(/\bto now\b/);
  await expect(timeline.bar('sa4')).not.toHaveClass(/\bopen\b/);
  await expect(timeline.panel.locator('.tl-now')).toHaveCount(0);
  await timeline.tableToggle.click();
  const cells = timeline.table.locator('tbody tr[data-id="sa4"] td');
  await expect(cells.nth(1), 'its end').toHaveText(/^the file's end \(\d+:\d\d\)$/);
  await expect(cells.nth(3), 'its status').toHaveText('interrupted · no result recorded');
});

test('the keyboard moves between bars with the arrows and Enter opens the run\'s card', async ({ page, app, serveFile }) => {
  const { view, timeline } = await openTimeline(page, app, serveFile);
  await timeline.bars.first().focus();
  await expect(timeline.bar('sa0')).toBeFocused();
  await page.keyboard.press('ArrowDown');
  await expect(timeline.bar('sa1')).toBeFocused();
  await page.keyboard.press('ArrowDown');
  await expect(timeline.bar('sa2')).toBeFocused();
  await expect(timeline.focus).toContainText('code-reviewer: part 2 of the codebase');
  await page.keyboard.press('End');
  await expect(timeline.bar('sa39')).toBeFocused();
  await page.keyboard.press('Home');
  await page.keyboard.press('ArrowDown');
  await page.keyboard.press('Enter');
  await expect.poll(() => new URL(page.url()).hash).toBe('#msg-sa1');
  await expect(view.message('sa1')).toBeInViewport();
  await expect(view.card('sa1').head).toHaveAttribute('aria-expanded', 'true');
});

test('a key pressed while the focused bar\'s row is redrawn still reaches the timeline', async ({ page, app, serveFile }) => {
  const { timeline } = await openTimeline(page, app, serveFile);
  await timeline.bars.first().focus();
  await expect(timeline.bar('sa0')).toBeFocused();
  // ArrowDown redraws the rows of sa0 and sa1: the focused bar leaves the
  // page until the next frame focuses sa1. Enter in that gap lands on <body>.
  const landed = await page.evaluate(async () => {
    const key = (target, k) => target.dispatchEvent(new KeyboardEvent('keydown', { key: k, bubbles: true, cancelable: true }));
    key(document.activeElement, 'ArrowDown');
    for (let i = 0; i < 20 && document.activeElement !== document.body; i++) await Promise.resolve();
    const on = document.activeElement === document.body ? 'body' : document.activeElement.dataset.id;
    key(document.body, 'Enter');
    return on;
  });
  expect(landed, 'the redraw took the focus to the page').toBe('body');
  await expect.poll(() => new URL(page.url()).hash).toBe('#msg-sa1');
});

test('a card offers "show in timeline": the timeline opens on its run, focused', async ({ page, app, serveFile }) => {
  const { view, timeline } = await openTimeline(page, app, serveFile);
  await timeline.toggle.click();
  await expect(timeline.panel).toHaveCount(0);
  await view.message('sa2').getByTestId('show-in-timeline').click();
  await expect(timeline.panel).toBeVisible();
  await expect(timeline.bar('sa2')).toBeFocused();
});

test('the transcript\'s search highlights the runs holding a match', async ({ page, app, serveFile }) => {
  const { timeline } = await openTimeline(page, app, serveFile);
  const search = new Search(page);
  await search.box.fill('needle sa2 ');
  await expect(timeline.bar('sa2')).toHaveAttribute('data-hit', 'true');
  await expect(page.locator('[data-testid="timeline-bar"][data-hit="true"]')).toHaveCount(1);
  await search.box.fill('');
  await expect(page.locator('[data-testid="timeline-bar"][data-hit="true"]')).toHaveCount(0);
});

test('only the rows in view are in the DOM; scrolling brings the others', async ({ page, app, serveFile }) => {
  const many = fanOut(3000, 400, 0);
  const { timeline } = await openTimeline(page, app, serveFile, many);
  const { runs } = await timeline.snapshot();
  expect(runs).toHaveLength(400);
  const inDom = await timeline.lanes.count();
  expect(inDom).toBeLessThan(20);
  const elements = await timeline.panel.evaluate((el) => el.querySelectorAll('*').length);
  expect(elements, 'the panel\'s DOM, whatever the number of runs').toBeLessThan(200);
  await timeline.lanesBox.evaluate((el) => { el.scrollTop = el.scrollHeight; });
  await expect(timeline.bar('sa399')).toBeVisible();
  await expect(timeline.bar('sa0')).toHaveCount(0);
});

test('the wheel (with Ctrl, a pinch), the buttons and brushing the minimap zoom; the whole session comes back',
  async ({ page, app, serveFile }) => {
    const { timeline } = await openTimeline(page, app, serveFile);
    const whole = await timeline.window.textContent();
    expect(whole).toMatch(/^0:00 – (\d+:\d\d) of \1$/);
    await timeline.panel.getByRole('button', { name: 'Zoom in' }).click();
    await expect(timeline.window).not.toHaveText(whole);
    await timeline.panel.getByTestId('timeline-whole').click();
    await expect(timeline.window).toHaveText(whole);
    const axis = await page.getByTestId('timeline-axis').boundingBox();
    await page.mouse.move(axis.x + axis.width / 4, axis.y + 10);
    await page.keyboard.down('Control');
    await page.mouse.wheel(0, -200);
    await page.keyboard.up('Control');
    await expect(timeline.window).not.toHaveText(whole);
    await timeline.panel.getByTestId('timeline-whole').click();
    const map = await timeline.minimap.boundingBox();
    await page.mouse.move(map.x + map.width * 0.1, map.y + 10);
    await page.mouse.down();
    await page.mouse.move(map.x + map.width * 0.3, map.y + 10, { steps: 4 });
    await page.mouse.up();
    await expect(timeline.window).not.toHaveText(whole);
    const brush = await page.getByTestId('timeline-brush').boundingBox();
    expect(Math.abs(brush.x - (map.x + map.width * 0.1))).toBeLessThan(4);
    expect(Math.abs(brush.width - map.width * 0.2)).toBeLessThan(6);
  });

test('the table lists the same runs: start, end, duration, status, tokens, critical path', async ({ page, app, serveFile }) => {
  // Pushed by the host page, a live source: a run going on reads running (a
  // file opened is still: the test below).
  const { timeline } = await openTimeline(page, app, serveFile, FAN_OUT, { pushed: true });
  await timeline.tableToggle.click();
  await expect(timeline.table).toBeVisible();
  const headers = await timeline.table.locator('thead th').allTextContents();
  expect(headers).toEqual(['Run', 'Start', 'End', 'Duration', 'Status', 'Tokens', 'Critical path']);
  const rows = timeline.table.locator('tbody tr');
  await expect(rows).toHaveCount(20);
  const first = await rows.first().locator('th, td').allTextContents();
  expect(first).toEqual(['code-reviewer: part 0 of the codebase', '0:01', '1:01', '1m 00s', 'done', '10k tokens', expect.stringMatching(/^(yes, held its parent .+|no)$/)]);
  await expect(timeline.table.locator('caption')).toHaveText('Subagent runs: Runs 1–20 of 43');
  await page.getByTestId('timeline-next').click();
  await expect(timeline.table.locator('caption')).toHaveText('Subagent runs: Runs 21–40 of 43');
  const running = timeline.table.locator('tbody tr[data-id="sa22"] td');
  await expect(running.nth(1)).toHaveText('running');
});

test('packed, runs that never overlap share a row', async ({ page, app, serveFile }) => {
  const serial = {
    messages: [0, 1, 2].map((i) => ({ ...structuredClone(byId.get(`sa${i * 2}`)),
      id: `s${i}`, created_at: new Date(Date.UTC(2026, 7, 3, 10, i * 2)).toISOString(),
      updated_at: new Date(Date.UTC(2026, 7, 3, 10, i * 2)).toISOString() })).map((m, i) => {
      m.metadata = { ...m.metadata, tool_call_id: `tc-s${i}` };
      return m;
    }),
  };
  const { timeline } = await openTimeline(page, app, serveFile, serial);
  await expect(timeline.lanes).toHaveCount(3);
  await timeline.pack.click();
  await expect(timeline.pack).toHaveAttribute('aria-pressed', 'true');
  await expect(timeline.lanes).toHaveCount(1);
  const { runs } = await timeline.snapshot();
  expect(runs.map((r) => r.lane)).toEqual([0, 0, 0]);
});

test('live: a new run gets its own lane at the end, and the others keep theirs', async ({ page, app, serveFile }) => {
  const { view, timeline } = await openTimeline(page, app, serveFile);
  const before = (await timeline.snapshot()).runs.map((r) => [r.id, r.lane]);
  const late = structuredClone(byId.get('sa4'));
  Object.assign(late, { id: 'sa-late', created_at: '2026-08-03T10:40:00.000Z', updated_at: '2026-08-03T10:40:00.000Z' });
  Object.assign(late.metadata, { tool_call_id: 'tc-sa-late', title: 'Late reviewer' });
  await view.append([late]);
  await eventually(async () => (await timeline.snapshot()).runs.some((r) => r.id === 'sa-late'), 'the late run');
  const after = (await timeline.snapshot()).runs;
  expect(after.map((r) => [r.id, r.lane]).slice(0, before.length)).toEqual(before);
  expect(after.at(-1)).toMatchObject({ id: 'sa-late', lane: before.length, end_ms: null, status: 'running' });
});

test('on a phone the timeline is a sheet', async ({ page, app, serveFile }) => {
  await page.setViewportSize({ width: 390, height: 800 });
  const { timeline } = await openTimeline(page, app, serveFile);
  expect(await timeline.panel.evaluate((el) => getComputedStyle(el).position)).toBe('fixed');
  const box = await timeline.panel.boundingBox();
  expect(box.x).toBe(0);
  expect(Math.round(box.x + box.width)).toBe(390);
  // Escape from a bar closes the sheet (again, should the panel still be
  // drawing its first frames on a busy machine and redraw the bar).
  await expect(async () => {
    await timeline.bars.first().press('Escape');
    await expect(timeline.panel).toHaveCount(0, { timeout: 1000 });
  }).toPass({ timeout: 20000 });
});

test('the board chip\'s drill-down draws its running subagents\' elapsed bars', async ({ page, app }) => {
  await BoardPage.open(page, app);
  const chip = page.getByRole('button', { name: /^\d+ subagents? running$/ }).first();
  await chip.waitFor({ timeout: 30000 });
  await chip.click();
  const popover = new ChipPopover(page);
  await popover.items.first().waitFor();
  const bars = popover.root.getByTestId('popover-elapsed-bar');
  // The demo goes on meanwhile: runs settle and start, so both are read together.
  await expect.poll(async () => {
    const [items, drawn] = await Promise.all([popover.items.count(), bars.count()]);
    return items > 0 && drawn === items;
  }, { message: 'a bar for each running subagent listed', timeout: 30000 }).toBe(true);
  await expect(popover.root.locator('.elapsed-scale')).toContainText(/ago\s*now/);
});

test('a live task page has the timeline too: a run is open-ended while it goes and closes as it settles', async ({ page, serve }) => {
  // The lifecycle replay (board.spec.mjs) starts after the page is open: two
  // subagents run, then settle one after the other.
  const server = await serve(['--scenario', 'lifecycle', '--once', '--interval-ms', '300', '--start-delay-ms', '6000']);
  const view = await TranscriptPage.openTask(page, server, 'task-7c1e');
  await view.waitConnected();
  const timeline = new Timeline(page);
  await timeline.toggle.click();
  let open;
  await expect.poll(async () => {
    open = (await timeline.snapshot()).runs.find((r) => r.end_ms === null);
    return open?.status ?? null;
  }, { message: 'a run going', timeout: 30000 }).toBe('running');
  await expect(timeline.bar(open.id)).toHaveAttribute('data-status', 'running');
  await expect.poll(async () => (await timeline.snapshot()).runs.find((r) => r.id === open.id)?.end_ms ?? null,
    { message: 'its end, once it settles', timeout: 30000 }).not.toBeNull();
  await expect(timeline.bar(open.id)).not.toHaveAttribute('data-status', 'running');
});
