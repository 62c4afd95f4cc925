// Where a page's main-thread time goes while messages are appended (docs/behaviour.md §10):
// a Chromium trace of the append run, summed by what the renderer's main
// thread did. Each event's self time (its duration less its children's) is
// counted once, so the parts add up to the thread's busy time. Used by
// bench/compare.mjs for both clients in the same run (BENCH_PROFILE=1).

/** The trace categories that name the main thread's work (as DevTools' Performance panel records). */
const CATEGORIES = [
  'devtools.timeline', 'disabled-by-default-devtools.timeline', 'v8.execute', 'blink.user_timing', 'toplevel',
];

/** What an event of the main thread is part of, by its name. */
const KINDS = [
  ['garbage collection', /GC|Sweep|Mark|Scavenge/],
  ['style', /^(UpdateLayoutTree|RecalculateStyles|ParseAuthorStyleSheet|ScheduleStyleRecalculation)$/],
  ['layout', /^(Layout|InvalidateLayout|ResizeObserver|IntersectionObserver|UpdateIntersectionObservations)/],
  ['paint and composite', /^(PrePaint|Paint|Layerize|UpdateLayer|UpdateLayerTree|CompositeLayers|Commit|PaintImage|RasterTask|ScrollLayer|HitTest|Animation)/],
  ['script', /^(FunctionCall|EvaluateScript|v8\.|V8\.|TimerFire|FireAnimationFrame|EventDispatch|RunMicrotasks|FireIdleCallback|XHR|WebSocketReceive|CompileCode|CompileScript|wasm|Wasm)/],
];

import { existsSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';

/** Starts a trace of `page`'s browser; stop it with `stopProfile`. */
export async function startProfile(page) {
  await page.context().browser().startTracing(page, { categories: CATEGORIES });
}

/**
 * Stops the trace and sums it: `{busyMs, kinds: {name: ms}, top: [[event, ms, count]], counts}`
 * for the busiest renderer main thread (the page's). When `BENCH_PROFILE` names a folder, the
 * trace is also written there as `<name>.json` (DevTools' Performance panel opens it).
 */
export async function stopProfile(page, name) {
  const buffer = await page.context().browser().stopTracing();
  const folder = process.env.BENCH_PROFILE;
  if (folder && existsSync(folder) && statSync(folder).isDirectory()) {
    writeFileSync(path.join(folder, `${name}.json`), buffer);
  }
  return summarize(JSON.parse(buffer.toString('utf8')).traceEvents ?? []);
}

/** The self time of every complete event of one thread, from its `X` and `B`/`E` events. */
function completeEvents(events) {
  const spans = [];
  const open = [];
  for (const e of events) {
    if (e.ph === 'X' && e.dur !== undefined) spans.push({ name: e.name, ts: e.ts, end: e.ts + e.dur });
    else if (e.ph === 'B') open.push(e);
    else if (e.ph === 'E') {
      const begin = open.pop();
      if (begin) spans.push({ name: begin.name, ts: begin.ts, end: e.ts });
    }
  }
  spans.sort((a, b) => a.ts - b.ts || b.end - a.end);
  const stack = [];
  for (const span of spans) {
    span.self = span.end - span.ts;
    while (stack.length && stack.at(-1).end <= span.ts) stack.pop();
    const parent = stack.at(-1);
    if (parent) parent.self -= Math.min(span.end, parent.end) - span.ts;
    stack.push(span);
  }
  return spans;
}

/** Sums a trace's events for the busiest `CrRendererMain` thread. */
export function summarize(traceEvents) {
  const mains = new Set(traceEvents
    .filter((e) => e.ph === 'M' && e.name === 'thread_name' && e.args?.name === 'CrRendererMain')
    .map((e) => `${e.pid}:${e.tid}`));
  const byThread = new Map();
  for (const e of traceEvents) {
    const key = `${e.pid}:${e.tid}`;
    if (!mains.has(key)) continue;
    if (!byThread.has(key)) byThread.set(key, []);
    byThread.get(key).push(e);
  }
  let best = [];
  let bestBusy = -1;
  for (const events of byThread.values()) {
    const spans = completeEvents(events);
    const busy = spans.filter((s) => s.name === 'RunTask').reduce((sum, s) => sum + (s.end - s.ts), 0);
    if (busy > bestBusy) [best, bestBusy] = [spans, busy];
  }
  const kinds = Object.fromEntries([...KINDS.map(([k]) => [k, 0]), ['other', 0]]);
  const byName = new Map();
  const counts = {};
  for (const span of best) {
    const self = Math.max(0, span.self) / 1000;
    const kind = KINDS.find(([, re]) => re.test(span.name))?.[0] ?? 'other';
    kinds[kind] += self;
    const entry = byName.get(span.name) ?? [span.name, 0, 0];
    entry[1] += self;
    entry[2] += 1;
    byName.set(span.name, entry);
    counts[span.name] = (counts[span.name] ?? 0) + 1;
  }
  const top = [...byName.values()].sort((a, b) => b[1] - a[1]).slice(0, 10);
  return { busyMs: bestBusy / 1000, kinds, top, counts, tasks: tasksByCause(best) };
}

/**
 * The thread's tasks by what started them, `{cause: [ms, count]}`: a frame
 * (the browser's rendering update: scroll events, resize observers, style,
 * layout, paint), a timer, a DOM event, a message from the browser process
 * (a WebSocket frame, a fetch) that ran script, or the scheduler's own work.
 */
function tasksByCause(spans) {
  const causes = {};
  const tasks = spans.filter((s) => s.name === 'RunTask');
  let next = 0;
  for (const task of tasks) {
    while (next < spans.length && spans[next].ts < task.ts) next += 1;
    const inside = [];
    for (let i = next; i < spans.length && spans[i].ts < task.end; i += 1) inside.push(spans[i].name);
    const cause = inside.some((n) => n === 'PrePaint' || n === 'Paint') ? 'frame'
      : inside.includes('TimerFire') ? 'timer'
        : inside.includes('EventDispatch') ? 'event'
          : inside.includes('FunctionCall') ? 'message with script'
            : 'scheduler';
    const entry = causes[cause] ?? [0, 0];
    entry[0] += (task.end - task.ts) / 1000;
    entry[1] += 1;
    causes[cause] = entry;
  }
  return causes;
}

/** One line per kind and the busiest events, per appended message, for `client`. */
export function printProfile(client, profile, appended, batches) {
  const per = (ms) => `${(ms / appended).toFixed(3)} ms`;
  const parts = Object.entries(profile.kinds).map(([kind, ms]) => `${kind} ${per(ms)}`);
  console.log(`        ${client} profile per appended message (busy ${per(profile.busyMs)}): ${parts.join(', ')}`);
  const events = profile.top.map(([name, ms, n]) => `${name} ${per(ms)} (${(n / batches).toFixed(1)}/batch)`);
  console.log(`          busiest events: ${events.join(', ')}`);
  const tasks = Object.entries(profile.tasks).sort((a, b) => b[1][0] - a[1][0])
    .map(([cause, [ms, n]]) => `${cause} ${per(ms)} (${(n / batches).toFixed(1)}/batch)`);
  console.log(`          tasks by cause: ${tasks.join(', ')}`);
}
