// The table of taskview against kandev's web client (docs/behaviour.md §10),
// printed by `make bench`. Every figure in it was measured in this run, both
// clients on the same server, session and frames (bench/compare.mjs,
// bench/cold.mjs); when kandev's client was not run, its column says so and
// no ratio is printed (docs/behaviour.md §10: never a ratio against an earlier run).

const ms = (v) => (v === undefined ? 'not measured' : `${v < 10 ? v.toFixed(2) : v.toFixed(0)} ms`);
const times = (kandev, ours) => (kandev !== undefined && ours ? `${(kandev / ours).toFixed(1)}×` : '');
const pad = (s, n) => String(s).padEnd(n);

/** Per appended message, from an append run (bench/live.mjs `appendRun`). */
const perMessage = (run, key = 'taskMs') => (run ? run[key] / run.appended : undefined);

/**
 * Prints the table from `compared` (results of `compareLive`) and `cold`
 * (what `coldVisit` returned, or null when it did not run).
 */
export function printComparison(compared, cold) {
  const rows = [];
  for (const { framing, size, ours, theirs } of compared) {
    const what = `${size / 1000}k messages, roster open, search active, ${framing} frames`;
    rows.push([`main-thread time per appended message (${what})`, ms(perMessage(theirs)), ms(perMessage(ours)),
      times(perMessage(theirs), perMessage(ours)), '≥ 50×']);
    rows.push([`  of it on the CPU (${what})`, ms(perMessage(theirs, 'cpuMs')), ms(perMessage(ours, 'cpuMs')),
      times(perMessage(theirs, 'cpuMs'), perMessage(ours, 'cpuMs')), '']);
    rows.push([`DOM elements after the appends (${framing} frames)`, theirs ? theirs.nodes.toLocaleString('en') : 'not measured',
      ours.nodes.toLocaleString('en'), times(theirs?.nodes, ours.nodes), '≤ 400']);
  }
  const big = cold && Math.max(...Object.keys(cold.bySize).map(Number));
  const ourCold = cold?.bySize[big];
  const theirCold = cold?.kandev?.bySize[big];
  const label = big ? `${big / 1000}k` : '10k';
  rows.push([`first rows, warm cache (${label})`, ms(theirCold?.warmFirstRowsMs), ms(ourCold?.warmFirstRowsMs),
    times(theirCold?.warmFirstRowsMs, ourCold?.warmFirstRowsMs), '≥ 10×']);
  rows.push([`first rows, cold visit at 10 Mbit/s, 40 ms latency (${label})`, ms(theirCold?.coldFirstRowsMs),
    ms(ourCold?.coldFirstRowsMs), times(theirCold?.coldFirstRowsMs, ourCold?.coldFirstRowsMs), '≥ 10×']);
  const kb = (r) => (r ? r.appBytes / 1000 : undefined);
  rows.push(['bytes of the app sent on a cold visit', theirCold ? `${kb(theirCold).toFixed(0)} KB` : 'not measured',
    ourCold ? `${kb(ourCold).toFixed(0)} KB` : 'not measured', times(kb(theirCold), kb(ourCold)), '≤ 400 KB']);
  const head = ['figure', 'kandev', 'taskview', 'ratio', 'goal'];
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => String(r[i]).length)));
  console.log('== taskview against kandev\'s web client, both measured in this run on the same server and data');
  for (const row of [head, widths.map((w) => '-'.repeat(w)), ...rows]) {
    console.log(row.map((c, i) => pad(c, widths[i])).join(' | '));
  }
}
