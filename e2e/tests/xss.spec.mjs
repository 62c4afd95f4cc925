// Markup meant to inject script renders as inert text (SPEC.md §6, §8): every
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
import { ROOT } from '../lib/files.mjs';
import { eventually } from '../lib/poll.mjs';
import { TranscriptPage } from '../pages/transcript.mjs';

const VECTORS = JSON.parse(readFileSync(path.join(ROOT, 'e2e/fixtures/xss-vectors.json'), 'utf8')).vectors
  .map((v) => v.text);

/** Top-level rows each vector's messages make (see `messagesFor`). */
const TOP_ROWS_PER_VECTOR = 14;

/**
 * The messages of vector `i` with text `v` in every field. Top-level rows, in
 * order: user text; one group (two thoughts and five tool calls); agent text;
 * three subagent cards (markdown result with a generic child, a thinking child
 * and a nested subagent; a typed conclusion; a `found: false` conclusion); a
 * todo list; a permission request; a clarification request; a status line; an
 * error line; an unknown type; an unreadable element; an orphan card (whose
 * message id and missing parent id hold the vector).
 */
function messagesFor(i, v) {
  const turn = `turn-${i}`;
  const at = new Date(Date.UTC(2026, 0, 1, 0, 0, i)).toISOString();
  const base = (id, type, author, extra = {}) => ({
    id: `x${i}-${id}`, session_id: 'sess-xss', task_id: 'task-xss', turn_id: turn, author_type: author, type,
    created_at: at, updated_at: at, ...extra,
  });
  const tool = (id, type, metadata) => base(id, type, 'agent', {
    content: v, metadata: { tool_call_id: `tc-x${i}-${id}`, title: v, status: 'complete', result: v, ...metadata },
  });
  const subagent = (id, resultText, extra = {}) => tool(id, 'tool_call', {
    normalized: { kind: 'subagent_task', subagent_task: {
      subagent_type: v, description: `Review ${v}`, prompt: v, status: 'completed', agent_id: v, model: v,
      child_session_id: v, duration_ms: 1500, total_tokens: 1234, tool_use_count: 7, result_text: resultText,
    } },
    ...extra,
  });
  const card = `tc-x${i}-card`;
  const nested = `tc-x${i}-nested`;
  return [
    base('user', 'message', 'user', { content: v }),
    base('think-long', 'thinking', 'agent', { content: `${v}\n${v}`, metadata: { thinking: `${v}\n${v}` } }),
    base('think-short', 'thinking', 'agent', { content: v }),
    tool('tool', 'tool_call', {}),
    tool('exec', 'tool_execute', { status: 'error', normalized: { kind: 'shell_exec', shell_exec: {
      command: v, description: v, output: { exit_code: 1, stdout: v, stderr: v } } } }),
    tool('read', 'tool_read', { normalized: { kind: 'read_file', read_file: { file_path: v, output: { content: v } } } }),
    tool('edit', 'tool_edit', { normalized: { kind: 'modify_file', modify_file: {
      file_path: v, mutations: [{ type: 'patch', file_path: v, diff: v }] } } }),
    tool('search', 'tool_search', { normalized: { kind: 'code_search', code_search: { query: v, pattern: v } } }),
    base('agent', 'message', 'agent', { content: v }),
    subagent('card', v),
    tool('card-child', 'tool_call', { parent_tool_call_id: card }),
    base('card-thought', 'thinking', 'agent', { content: v, metadata: { parent_tool_call_id: card } }),
    subagent('nested', v, { parent_tool_call_id: card }),
    tool('nested-child', 'tool_execute', { parent_tool_call_id: nested, normalized: { kind: 'shell_exec',
      shell_exec: { command: v, output: { exit_code: 0, stdout: v } } } }),
    subagent('conclusion', JSON.stringify({ verdict: v, [v]: v, details: { note: v, list: [v] } })),
    subagent('no-conclusion', JSON.stringify({ found: false, reason: v })),
    base('todo', 'todo', 'agent', { content: v, metadata: { todos: [{ text: v, status: 'completed' },
      { content: v, status: 'pending' }, v] } }),
    base('permission', 'permission_request', 'agent', { content: v, metadata: {
      title: v, status: v, action_details: { description: v }, options: [v, { name: v }, { label: v }] } }),
    base('question', 'clarification_request', 'agent', { content: v, metadata: { question: v, options: [v] } }),
    base('status', 'status', 'agent', { content: v }),
    base('error', 'error', 'agent', { content: v }),
    base('unknown', `custom_${i}`, 'agent', { content: v }),
    v, // an element that is not a message: an unreadable row showing its raw text
    // ids are text too: the orphan's own id and its missing parent's id hold the vector
    { ...tool('orphan', 'tool_call', { parent_tool_call_id: `x${i}-gone-${v}` }), id: `x${i}-orphan-${v}` },
  ];
}

/** Ids of every message made (the unreadable elements have none). */
function allIds(messages) {
  return messages.filter((m) => typeof m === 'object').map((m) => m.id);
}

/** Clicks open every collapsed card, group and disclosure in view, until nothing is left. */
async function openEverything(page) {
  for (let round = 0; round < 25; round += 1) {
    const opened = await page.evaluate(() => {
      const root = document.querySelector('[data-testid="transcript"]');
      let n = 0;
      for (const button of root.querySelectorAll('button[aria-expanded="false"], [data-testid="show-all"]')) {
        button.click();
        n += 1;
      }
      for (const details of root.querySelectorAll('details:not([open])')) {
        details.open = true;
        n += 1;
      }
      // Two frames for what was opened to render (one round trip: fewer trace steps).
      return n === 0 ? 0 : new Promise((r) => { requestAnimationFrame(() => requestAnimationFrame(() => r(n))); });
    });
    if (opened === 0) return;
  }
  throw new Error('something kept collapsing after 25 rounds of opening');
}

/** What is wrong with the DOM now, plus what is rendered (row keys, message ids) and the canary. */
async function inspect(page) {
  return page.evaluate(() => {
    const ALLOWED = new Set(['http:', 'https:', 'mailto:']);
    const URL_ATTRIBUTES = new Set(['href', 'src', 'action', 'formaction', 'xlink:href', 'data', 'poster',
      'background', 'ping', 'codebase', 'cite', 'srcset', 'srcdoc']);
    // The scheme a browser would see: surrounding controls/spaces trimmed, tabs and newlines removed.
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

const MESSAGES = VECTORS.flatMap((v, i) => messagesFor(i, v));

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
    await openEverything(page);
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
