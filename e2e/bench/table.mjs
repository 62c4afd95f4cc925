// Issue 25's table, printed by `make bench` from one run: taskview's figures
// beside kandev's (measured once, side by side, on the same 10,000-message
// task, and quoted in the issue), with the ratios and the goals.

/** kandev's web client on the 10k task (issue 25). */
export const KANDEV = {
  perMessageMs: 49.7,
  nodes: 3452,
  warmFirstRowsMs: 1867,
  coldFirstRowsMs: 5037,
  bytesSentKB: 2677,
};

const ms = (v) => (v === undefined ? 'not measured' : `${v < 10 ? v.toFixed(2) : v.toFixed(0)} ms`);
const times = (kandev, ours) => (ours ? `${(kandev / ours).toFixed(1)}×` : '');
const pad = (s, n) => String(s).padEnd(n);

/**
 * Prints the table from `live` (results of `liveAppends`) and `cold` (what
 * the cold-visit measurement returned, or null when it did not run).
 */
export function printIssueTable(live, cold) {
  const find = (size, mode) => live.find((r) => r.size === size && r.mode === mode);
  const rows = [];
  const sizes = [...new Set(live.map((r) => r.size))];
  for (const size of sizes) {
    for (const mode of ['open', 'closed']) {
      const r = find(size, mode);
      if (!r) continue;
      const what = `${size / 1000}k messages, roster ${mode}${mode === 'open' ? ', search active' : ''}`;
      const goal = size === 10000 ? '≥ 50× (≤ 0.8 ms)' : 'flat';
      rows.push([`main-thread time per appended message (${what})`, `${KANDEV.perMessageMs} ms`,
        ms(r.perMessageMs), times(KANDEV.perMessageMs, r.perMessageMs), goal]);
      rows.push([`  of it on the CPU (${what})`, '', ms(r.cpuPerMessageMs),
        times(KANDEV.perMessageMs, r.cpuPerMessageMs), goal]);
    }
  }
  for (const size of sizes) {
    for (const mode of ['open', 'closed']) {
      const r = find(size, mode);
      if (!r) continue;
      rows.push([`DOM elements after the appends (${size / 1000}k, roster ${mode})`, KANDEV.nodes.toLocaleString('en'),
        r.nodes.toLocaleString('en'), times(KANDEV.nodes, r.nodes), '≤ 400']);
    }
  }
  rows.push(['first rows, warm cache (10k)', ms(KANDEV.warmFirstRowsMs), ms(cold?.warmFirstRowsMs),
    times(KANDEV.warmFirstRowsMs, cold?.warmFirstRowsMs), '≥ 10×']);
  rows.push(['first rows, cold visit at 10 Mbit/s, 40 ms latency (10k)', ms(KANDEV.coldFirstRowsMs),
    ms(cold?.coldFirstRowsMs), times(KANDEV.coldFirstRowsMs, cold?.coldFirstRowsMs), '≥ 10×']);
  const kb = cold?.bytesSent === undefined ? undefined : cold.bytesSent / 1000;
  rows.push(['bytes sent on a cold visit (app)', `${KANDEV.bytesSentKB.toLocaleString('en')} KB`,
    kb === undefined ? 'not measured' : `${kb.toFixed(0)} KB`, times(KANDEV.bytesSentKB, kb), '≤ 400 KB']);
  const head = ['figure', 'kandev', 'taskview', 'ratio', 'goal'];
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => String(r[i]).length)));
  console.log('== issue 25: taskview against kandev\'s web client (kandev\'s figures as quoted in the issue)');
  for (const row of [head, widths.map((w) => '-'.repeat(w)), ...rows]) {
    console.log(row.map((c, i) => pad(c, widths[i])).join(' | '));
  }
}
