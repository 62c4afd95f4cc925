// Temporary: screenshots of the state board on the captures home (not committed).
import { chromium } from '@playwright/test';
import { rmSync } from 'node:fs';
import { LAUNCH_OPTIONS } from './lib/browser.mjs';
import { startServer } from './lib/server.mjs';
import { capturesHome } from './lib/home.mjs';
const dir = '/tmp/shots-home';
rmSync(dir, { recursive: true, force: true });
rmSync(`${dir}-opencode`, { recursive: true, force: true });
const home = capturesHome(dir);
const server = await startServer([...home.roots.flatMap((r) => ['--recordings', r]), '--poll-ms', '200']);
for (let i = 0; i < 120; i++) {
  const s = await server.json('api/v1/workflows/wf-recordings/snapshot');
  if (s.tasks.length >= home.sessions.length && s.tasks.every((t) => t.session_facts)) break;
  await new Promise((r) => setTimeout(r, 500));
}
const browser = await chromium.launch(LAUNCH_OPTIONS);
const path = process.argv[2] ?? 'board/wf-recordings';
for (const [w, h] of [[1280, 900], [390, 844]]) {
  for (const scheme of ['light', 'dark']) {
    const ctx = await browser.newContext({ viewport: { width: w, height: h }, colorScheme: scheme });
    const page = await ctx.newPage();
    page.on('console', (m) => { if (m.type() === 'error') console.log('console', m.text()); });
    await page.goto(server.url + path);
    await page.waitForSelector('[data-testid=task-card]', { timeout: 30000 });
    await page.waitForTimeout(800);
    await page.screenshot({ path: `/tmp/shots/board-${w}-${scheme}.png`, fullPage: false });
    await ctx.close();
  }
}
const s = await server.json('api/v1/workflows/wf-recordings/snapshot');
console.log(JSON.stringify(s.tasks.map((t) => [t.title.slice(0, 30), t.state, t.session_facts?.agent, t.session_facts?.interrupted, t.session_facts?.waiting_for, t.session_facts?.last_activity_at])));
await browser.close();
await server.stop();
