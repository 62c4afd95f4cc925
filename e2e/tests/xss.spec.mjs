// Markup meant to inject script renders as inert text (docs/behaviour.md §6, §8): every
// vector of e2e/fixtures/xss-vectors.json is put into every text field of a
// kandev message list, the list is opened through /view?src=, every card,
// group, disclosure and details element is opened, and the whole list is
// scrolled through. At every step: the canary never fired, no element carries
// an on* attribute, no URL attribute has a scheme other than http, https or
// mailto (relative URLs allowed), and the transcript holds no script-capable or
// embedding element.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { test, expect } from '../lib/fixtures.mjs';
import { openEverything } from '../lib/expand.mjs';
import { ROOT } from '../lib/files.mjs';
import { eventually } from '../lib/poll.mjs';
import { TranscriptPage } from '../pages/transcript.mjs';
import { everyRowKind } from '../lib/sessions.mjs';

const VECTORS = JSON.parse(readFileSync(path.join(ROOT, 'e2e/fixtures/xss-vectors.json'), 'utf8')).vectors
  .map((v) => v.text);

/** Top-level rows each vector's messages make (see `everyRowKind`). */
const TOP_ROWS_PER_VECTOR = 14;

/** Ids of every message made (the unreadable elements have none). */
function allIds(messages) {
  return messages.filter((m) => typeof m === 'object').map((m) => m.id);
}

/** What is wrong with the DOM now, plus what is rendered (row keys, message ids) and the canary. */
async function inspect(page) {
  return page.evaluate(() => {
    const ALLOWED = new Set(['http:', 'https:', 'mailto:']);
    const URL_ATTRIBUTES = new Set(['href', 'src', 'action', 'formaction', 'xlink:href', 'data', 'poster',
      'background', 'ping', 'codebase', 'cite', 'srcset', 'srcdoc']);
    // The scheme a browser would see: surrounding controls/spaces trimmed, tabs
    // and newlines removed.
    const schemeOf = (raw) => {
      const cleaned = raw.replace(/^[\u0000-\u0020]+|[\u0000-\u0020]+$/g, '').replace(/[\t\n\r]/g, '');
      const m = /^([a-zA-Z][a-zA-Z0-9+.-]*):/.exec(cleaned);
      return m ? `${m[1].toLowerCase()}:` : null;
    };
    const problems = [];
    const describe = (el) => `<${el.tagName.toLowerCase()}> in ${el.closest('[id^="msg-"]')?.id ?? 'page'}`;
    for (const el of document.querySelectorAll('*')) {
      for (const attr of el.attributes) {
        const name = attr.name.toLowerCase();
        if (name.startsWith('on')) problems.push(`${describe(el)} has ${attr.name}=${attr.value}`);
        if (!URL_ATTRIBUTES.has(name)) continue;
        if (name === 'srcdoc' || name === 'srcset') {
          problems.push(`${describe(el)} has ${name}`);
          continue;
        }
        const scheme = schemeOf(attr.value);
        let resolved = null;
        try { resolved = new URL(attr.value, document.baseURI).protocol; } catch { /* not a URL: inert */ }
        if ((scheme && !ALLOWED.has(scheme)) || (resolved && !ALLOWED.has(resolved))) {
          problems.push(`${describe(el)} has ${name}=${attr.value}`);
        }
      }
    }
    const transcript = document.querySelector('[data-testid="transcript"]');
    const forbidden = 'script, iframe, frame, frameset, object, embed, applet, base, meta, link, style, form, '
      + 'svg, math, video, audio, source, template, noscript, textarea, select, marquee, '
      + 'input:not([type="checkbox"])';
    for (const el of transcript.querySelectorAll(forbidden)) problems.push(`${describe(el)} from content`);
    for (const el of document.querySelectorAll('base, meta[http-equiv], iframe, object, embed, frame')) {
      problems.push(`${describe(el)} in the document`);
    }
    return {
      problems,
      canary: window.__xss,
      rowKeys: [...transcript.querySelectorAll('.row-slot[data-row-key]')].map((s) => s.dataset.rowKey),
      ids: [...transcript.querySelectorAll('[id^="msg-"]')].map((e) => e.id.slice('msg-'.length)),
      atEnd: transcript.scrollTop + transcript.clientHeight >= transcript.scrollHeight - 2,
    };
  });
}

const MESSAGES = VECTORS.flatMap((v, i) => everyRowKind(i, v));

test.use({ viewport: { width: 1280, height: 1600 } });

/** Opens every vector's messages with the canary armed, once the last status row shows. */
async function openCorpus(page, app, serveFile) {
  await page.addInitScript(() => {
    window.__xss = 0;
    const fire = () => { window.__xss += 1; };
    window.alert = fire;
    window.confirm = fire;
    window.prompt = fire;
    window.print = fire;
  });
  const src = serveFile({ name: 'xss-every-field.json', text: JSON.stringify({ messages: MESSAGES }) });
  const view = await TranscriptPage.openFile(page, app, src);
  await view.message('x1-status').waitFor();
  return view;
}

const canary = (page) => page.evaluate(() => window.__xss);

test(`the corpus has at least 50 vectors (${VECTORS.length})`, () => {
  expect(VECTORS.length).toBeGreaterThanOrEqual(50);
});

test('the vectors are shown as text', async ({ page, app, serveFile }) => {
  const view = await openCorpus(page, app, serveFile);
  const [script, img] = VECTORS;
  // textContent: chips are upper-cased by CSS, which innerText would apply.
  const text = async (locator) => locator.first().textContent();
  expect(await text(view.message('x0-user'))).toContain(script);
  expect(await text(view.message('x0-agent'))).toContain(script);
  const card = view.card('x0-card');
  expect(await text(card.type), 'type chip').toBe(script);
  expect(await text(card.description), 'description').toBe(`Review ${script}`);
  expect(await text(card.root.getByTestId('subagent-meta-model')), 'model chip').toBe(script);
  expect(await text(view.card('x1-card').summary), 'summary').toBe(img);
  expect(await text(view.message('x0-status'))).toContain(script);
  expect(await text(view.message('x1-error'))).toContain(img);
  expect(await text(view.message('x0-unknown'))).toContain(script);
  expect(await text(view.message('x0-todo'))).toContain(script);
  expect(await text(page.getByTestId('unreadable-message'))).toContain(JSON.stringify(script));
  expect(await canary(page), 'canary').toBe(0);
});

test('every field of every vector, opened and scrolled through, stays inert', async ({ page, app, serveFile }) => {
  test.setTimeout(6 * 60 * 1000);
  const view = await openCorpus(page, app, serveFile);
  const rowKeys = new Set();
  const ids = new Set();
  const problems = new Set();
  let endsSeen = 0;
  for (let step = 0; step < 5000 && endsSeen < 2; step += 1) {
    const top = await view.scroller.evaluate((el) => el.scrollTop);
    await openEverything(page);
    // Each row opened keeps its header where it was on screen (docs/behaviour.md §10), so
    // opening them all scrolls past the rows above the last: back to the
    // same place, to pass over every row.
    await view.scroller.evaluate((el, at) => new Promise((r) => {
      el.scrollTop = at;
      requestAnimationFrame(() => requestAnimationFrame(r));
    }), top);
    const seen = await inspect(page);
    seen.rowKeys.forEach((k) => rowKeys.add(k));
    seen.ids.forEach((id) => ids.add(id));
    seen.problems.forEach((p) => problems.add(p));
    expect(seen.canary, `times the canary fired by step ${step}`).toBe(0);
    expect([...problems].slice(0, 10), `unsafe DOM by step ${step}`).toEqual([]);
    endsSeen = seen.atEnd ? endsSeen + 1 : 0;
    await view.scroller.evaluate((el) => new Promise((r) => {
      el.scrollTop += Math.floor(el.clientHeight * 0.75);
      requestAnimationFrame(() => requestAnimationFrame(r));
    }));
  }
  expect(rowKeys.size, 'top-level rows seen').toBe(VECTORS.length * TOP_ROWS_PER_VECTOR);
  expect(allIds(MESSAGES).filter((id) => !ids.has(id)), 'messages never rendered').toEqual([]);
  expect(await canary(page), 'canary').toBe(0);
});

test('the inspection itself catches unsafe DOM', async ({ page, app, serveFile, errors }) => {
  // The page's Content-Security-Policy refuses the injected onclick and logs it:
  // expected here (and required below), so it does not count against the page.
  const refused = 'inline event handler violates the following Content Security Policy';
  errors.allow(page, new RegExp(refused));
  await openCorpus(page, app, serveFile);
  await page.evaluate(() => {
    const row = document.querySelector('[data-testid="transcript"] [id^="msg-"]');
    const link = document.createElement('a');
    link.setAttribute('href', ' java\tscript:alert(1)');
    const div = document.createElement('div');
    div.setAttribute('onclick', 'alert(1)');
    row.append(link, div, document.createElement('iframe'));
  });
  const { problems } = await inspect(page);
  expect(problems.length, `problems found: ${JSON.stringify(problems)}`).toBeGreaterThanOrEqual(4);
  await eventually(() => errors.of(page).some((e) => e.includes(refused)), 'the CSP to refuse the injected onclick');
});
