// `taskview export` and the file view's "Download HTML" (docs/behaviour.md §9): one
// self-contained HTML file, opened as file:// in Chromium, renders the same
// transcript as the live /view (row for row, with search, roster and the
// subagent timeline), makes
// no network request, and keeps hostile text inert. Secrets are masked by
// default, the count shown, and unmasking is an explicit choice.
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { test, expect } from '../lib/fixtures.mjs';
import { ROOT } from '../lib/files.mjs';
import { fanOut, session } from '../lib/sessions.mjs';
import { Roster, Search } from '../pages/fanout.mjs';
import { Timeline } from '../pages/timeline.mjs';
import { TranscriptPage } from '../pages/transcript.mjs';

const BIN = process.env.TASKVIEW_BIN ?? path.join(ROOT, 'target/release/taskview');

/** Writes `text` as `name` in the test's folder, exports it, returns the page's file:// URL. */
function exportFile(name, text) {
  const dir = test.info().outputPath('export');
  mkdirSync(dir, { recursive: true });
  const input = path.join(dir, name);
  const output = path.join(dir, `${name}.html`);
  writeFileSync(input, text);
  execFileSync(BIN, ['export', input, '-o', output, '--dist', path.join(ROOT, 'dist')]);
  return { url: pathToFileURL(output).href, html: readFileSync(output, 'utf8') };
}

/** Every request the page makes that is not the file itself or inline data. */
function watchNetwork(page) {
  const requests = [];
  page.on('request', (r) => { if (!/^(file|data):/.test(r.url())) requests.push(r.url()); });
  return requests;
}

test('an exported file opens from disk and shows the same rows as the live view, with search and roster, and no network', async ({ page, openPage, app, serveFile }) => {
  const text = JSON.stringify({ messages: session(300) });
  const exported = exportFile('long.json', text);
  expect(exported.html).toMatch(/^<!DOCTYPE html>\n<html lang="en" data-export="1">/);
  const requests = watchNetwork(page);
  const offline = await new TranscriptPage(page).goto(`${exported.url}?debug`);
  await offline.subagentCards.first().waitFor();
  expect(await page.evaluate(() => document.documentElement.dataset.export)).toBe('1');

  const livePage = await openPage();
  const live = await TranscriptPage.openFile(livePage, app, serveFile({ name: 'long.json', text }), { debug: true });
  const rows = await offline.sameRowsAs(live, 'exported vs live rows');
  expect(rows.length, 'rows').toBeGreaterThan(50);

  // Search reaches a row far below, and the roster lists every subagent.
  const search = new Search(page);
  await search.find('Prompt 14:');
  await expect(search.current()).toBeVisible();
  const [roster, liveRoster] = [new Roster(page), new Roster(livePage)];
  await roster.open();
  await liveRoster.open();
  const listed = await liveRoster.listed();
  expect(listed.length, 'subagents listed live').toBeGreaterThan(10);
  await expect.poll(() => roster.listed(), { message: 'the same roster' }).toEqual(listed);
  // Groups open as in the app (m261–m263: the tool calls of prompt 14).
  const group = page.locator('[data-row-key="group:m261"] button[aria-expanded]').first();
  await expect(group).toHaveAttribute('aria-expanded', 'false');
  await group.click();
  await expect(group).toHaveAttribute('aria-expanded', 'true');
  expect(requests, 'network requests').toEqual([]);
});

test('the file view downloads the same page, which opens from disk with the same rows and no network', async ({ page, openPage, app, serveFile }) => {
  const text = JSON.stringify({ messages: session(120, 'd') });
  const live = await TranscriptPage.openFile(page, app, serveFile({ name: 'dl.json', text }), { debug: true });
  await live.subagentCards.first().waitFor();
  const [download] = await Promise.all([page.waitForEvent('download'), page.getByTestId('download-html').click()]);
  expect(download.suggestedFilename()).toBe('dl.html');
  const file = test.info().outputPath('dl.html');
  await download.saveAs(file);
  expect(readFileSync(file, 'utf8')).toMatch(/^<!DOCTYPE html>\n<html lang="en" data-export="1">/);
  const other = await openPage();
  const requests = watchNetwork(other);
  const offline = await new TranscriptPage(other).goto(`${pathToFileURL(file).href}?debug`);
  const rows = await offline.sameRowsAs(live, 'downloaded vs live rows');
  expect(rows.length).toBeGreaterThan(20);
  expect(await other.getByTestId('download-html').count(), 'an exported page offers no download').toBe(0);
  expect(requests, 'network requests').toEqual([]);
});

test('an exported file has the same subagent timeline as the live view, with no network', async ({ page, openPage, app, serveFile }) => {
  const text = JSON.stringify(fanOut(600).messages);
  const exported = exportFile('fan-out.json', text);
  const requests = watchNetwork(page);
  const offline = await new TranscriptPage(page).goto(`${exported.url}?debug`);
  await offline.subagentCards.first().waitFor();
  const livePage = await openPage();
  const live = await TranscriptPage.openFile(livePage, app, serveFile({ name: 'fan-out.json', text }), { debug: true });
  await live.subagentCards.first().waitFor();

  const [timeline, liveTimeline] = [new Timeline(page), new Timeline(livePage)];
  // Tall enough that neither page's panel gives up lane rows to its list
  // (the two pages have different bars above the list).
  await Promise.all([page, livePage].map((p) => p.setViewportSize({ width: 1280, height: 1000 })));
  await timeline.open();
  await liveTimeline.open();
  const seen = await liveTimeline.snapshot();
  expect(seen.runs.length, 'runs live').toBeGreaterThan(3);
  expect(await timeline.snapshot(), 'the same runs, lanes, times and critical path').toEqual(seen);
  await expect(timeline.bars.first()).toBeVisible();
  expect(await timeline.bars.count(), 'bars drawn').toBe(await liveTimeline.bars.count());
  expect(requests, 'network requests').toEqual([]);
});

test('hostile text stays inert in an exported file', async ({ page }) => {
  const vectors = JSON.parse(readFileSync(path.join(ROOT, 'e2e/fixtures/xss-vectors.json'), 'utf8')).vectors.map((v) => v.text);
  const at = '2026-01-01T00:00:00Z';
  const messages = vectors.flatMap((v, i) => {
    const base = (id, type, author, extra) => ({
      id: `x${i}-${id}`, session_id: 's', task_id: 't', turn_id: `turn-${i}`, author_type: author, type,
      created_at: at, updated_at: at, content: v, ...extra,
    });
    return [
      base('user', 'message', 'user', {}),
      base('agent', 'message', 'agent', {}),
      base('card', 'tool_call', 'agent', { metadata: { tool_call_id: `tc-${i}`, title: v, status: 'complete', result: v,
        normalized: { kind: 'subagent_task', subagent_task: { subagent_type: v, description: v, prompt: v, status: 'completed', result_text: v } } } }),
      base('child', 'tool_call', 'agent', { metadata: { tool_call_id: `tc-${i}-c`, parent_tool_call_id: `tc-${i}`, title: v, status: 'complete', result: v } }),
    ];
  });
  const exported = exportFile('xss.json', JSON.stringify({ messages }));
  const requests = watchNetwork(page);
  await page.addInitScript(() => {
    window.__xss = 0;
    window.alert = () => { window.__xss += 1; };
  });
  const view = await new TranscriptPage(page).goto(exported.url);
  await view.message('x0-user').waitFor();
  expect(await view.message('x0-user').textContent()).toContain(vectors[0]);
  // Open every card, then look at the whole document.
  for (let round = 0; round < 10; round += 1) {
    const opened = await page.evaluate(() => {
      const closed = [...document.querySelectorAll('[data-testid="transcript"] button[aria-expanded="false"]')];
      closed.forEach((b) => b.click());
      return closed.length;
    });
    if (opened === 0) break;
    await page.waitForTimeout(100);
  }
  const found = await page.evaluate(() => {
    const transcript = document.querySelector('[data-testid="transcript"]');
    const handlers = [...document.querySelectorAll('*')].flatMap((el) => [...el.attributes]
      .filter((a) => a.name.toLowerCase().startsWith('on')).map((a) => `${el.tagName} ${a.name}`));
    const active = [...transcript.querySelectorAll('script, iframe, object, embed, base, meta, link, style, form, svg, math')]
      .map((el) => el.tagName);
    return { handlers, active, scripts: document.scripts.length, canary: window.__xss };
  });
  expect(found).toEqual({ handlers: [], active: [], scripts: 3, canary: 0 });
  await page.waitForTimeout(500);
  expect(await page.evaluate(() => window.__xss), 'canary').toBe(0);
  expect(requests, 'network requests').toEqual([]);
});

// Fake secrets shaped like real ones (core/src/secrets/tests.rs).
const GITHUB_PAT = 'ghp_u8jzPde0IgxLd6GncfBAepfJBd0Kh8oOOL8d';
const DB_PASSWORD = 'x8Kq2LmZ9vR4tW7p';

/** A short session whose first prompt holds two secrets. */
function sessionWithSecrets(prefix) {
  const messages = session(40, prefix);
  messages[0].content = `Prompt 1: deploy with GH_TOKEN=${GITHUB_PAT}\nDATABASE_PASSWORD=${DB_PASSWORD}`;
  return JSON.stringify({ messages });
}

test('export_masks_secrets_by_default: the CLI export shows how many, and --no-mask keeps them', async ({ page }) => {
  const exported = exportFile('secrets.json', sessionWithSecrets('e'));
  expect(exported.html).not.toContain(GITHUB_PAT);
  expect(exported.html).not.toContain(DB_PASSWORD);
  const view = await new TranscriptPage(page).goto(exported.url);
  await expect(page.getByTestId('secrets-masked')).toHaveText('2 secrets masked');
  await expect(view.message('e0')).toContainText('GH_TOKEN=[masked: github-pat]');
  await expect(view.message('e0')).toContainText('DATABASE_PASSWORD=[masked: generic-api-key]');

  const dir = test.info().outputPath('export');
  const output = path.join(dir, 'kept.html');
  execFileSync(BIN, ['export', path.join(dir, 'secrets.json'), '-o', output, '--dist', path.join(ROOT, 'dist'), '--no-mask']);
  expect(readFileSync(output, 'utf8')).toContain(GITHUB_PAT);
  const kept = await new TranscriptPage(page).goto(pathToFileURL(output).href);
  await expect(page.getByTestId('secrets-masked')).toHaveText('secrets not masked');
  await expect(kept.message('e0')).toContainText(GITHUB_PAT);
});

test('export_masks_secrets_by_default: the file view downloads masked, says how many, and unmasks only when asked', async ({ page, openPage, app, serveFile }) => {
  const live = await TranscriptPage.openFile(page, app, serveFile({ name: 'secrets.json', text: sessionWithSecrets('f') }));
  await live.message('f0').waitFor();
  // The reader sees the file as it is; only the download is masked.
  await expect(live.message('f0')).toContainText(GITHUB_PAT);
  const mask = page.getByTestId('mask-secrets');
  await expect(mask).toBeChecked();
  const download = async (name) => {
    const [file] = await Promise.all([page.waitForEvent('download'), page.getByTestId('download-html').click()]);
    const saved = test.info().outputPath(name);
    await file.saveAs(saved);
    return saved;
  };

  const masked = await download('masked.html');
  await expect(page.getByTestId('download-status')).toHaveText('masked 2 secrets (1 generic-api-key, 1 github-pat)');
  const html = readFileSync(masked, 'utf8');
  expect(html).not.toContain(GITHUB_PAT);
  expect(html).not.toContain(DB_PASSWORD);
  const other = await openPage();
  const offline = await new TranscriptPage(other).goto(pathToFileURL(masked).href);
  await expect(other.getByTestId('secrets-masked')).toHaveText('2 secrets masked');
  await expect(offline.message('f0')).toContainText('GH_TOKEN=[masked: github-pat]');

  await mask.uncheck();
  const kept = await download('kept.html');
  await expect(page.getByTestId('download-status')).toHaveText('secrets not masked');
  expect(readFileSync(kept, 'utf8')).toContain(GITHUB_PAT);
});
