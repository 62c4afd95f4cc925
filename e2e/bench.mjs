// Browser benchmark (`make bench`, never a test): opens generated sessions of
// 100, 1,000 and 10,000 messages in `/view?src=` and prints, per size, the time
// to first rows, the DOM node count, and the cost of appending 100 live
// messages (pushed one at a time through the embed postMessage contract).
// Reports ratios 10k/100 from this one run. Shares the server, the served
// files and the browser launch of the e2e fixtures (lib/).
import { chromium } from '@playwright/test';
import { LAUNCH_OPTIONS } from './lib/browser.mjs';
import { ServedFolder } from './lib/files.mjs';
import { startServer } from './lib/server.mjs';
import { session } from './lib/sessions.mjs';

const SIZES = [100, 1000, 10000];
const results = [];
const files = new ServedFolder('bench');
const server = await startServer([]);
const browser = await chromium.launch(LAUNCH_OPTIONS);
try {
  for (const size of SIZES) {
    const src = files.add({ name: `bench-${size}.json`, text: JSON.stringify({ messages: session(size) }) });
    const page = await (await browser.newContext({ viewport: { width: 1200, height: 900 } })).newPage();
    await page.addInitScript(() => {
      new MutationObserver((_, obs) => {
        if (document.querySelector('.row-slot')) { window.__firstRows = performance.now(); obs.disconnect(); }
      }).observe(document, { childList: true, subtree: true });
    });
    await page.goto(`${server.url}view?src=${encodeURIComponent(src)}`);
    await page.waitForFunction(() => window.__firstRows !== undefined, null, { timeout: 120000 });
    const firstRows = await page.evaluate(() => window.__firstRows);
    await page.waitForTimeout(300);
    const nodes = await page.evaluate(() => document.getElementsByTagName('*').length);
    // Follow the tail, then push 100 messages one by one and wait for the last row.
    await page.evaluate(() => { const s = document.querySelector('[data-testid=transcript]'); s.scrollTop = s.scrollHeight; });
    await page.waitForTimeout(300);
    const live = session(100, 'live', size + 10);
    const append = await page.evaluate(async (messages) => {
      const start = performance.now();
      for (const m of messages) window.postMessage({ taskview: 'append', messages: [m] }, '*');
      const last = `msg-${messages[messages.length - 1].id}`;
      const deadline = start + 60000;
      while (!document.getElementById(last)) {
        if (performance.now() > deadline) return NaN;
        await new Promise((r) => setTimeout(r, 5));
      }
      return performance.now() - start;
    }, live);
    const nodesAfter = await page.evaluate(() => document.getElementsByTagName('*').length);
    results.push({ size, firstRows, nodes, append, nodesAfter });
    console.log(`${String(size).padStart(6)} messages: first rows ${firstRows.toFixed(0)} ms, ` +
      `DOM nodes ${nodes} (${nodesAfter} after appends), append 100 live messages ${append.toFixed(0)} ms`);
    await page.context().close();
  }
  const [small, , large] = results;
  const ratio = (a, b) => (a / b).toFixed(2);
  console.log(`ratios 10k/100: first rows ${ratio(large.firstRows, small.firstRows)}x, ` +
    `DOM nodes ${ratio(large.nodes, small.nodes)}x, append 100 ${ratio(large.append, small.append)}x`);
} finally {
  await browser.close();
  await server.stop();
  files.remove();
}
