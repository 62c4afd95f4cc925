// Every dialect fixture renders its subagent cards through `/view?src=`, and the
// same cards again when the file is a task of `taskview serve --recordings`
// (read back through the session's messages over HTTP, which the kandev list
// importer reads). The expected faces are written out below from the fixtures'
// contents and SPEC.md §3 (chip formats §3.2, description de-duplication §3.3).
import { mkdtempSync, readFileSync, rmSync, writeFileSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { ROOT, expectEqual, expectNoErrors, serveFile } from '../harness.mjs';

/**
 * Per fixture: its file, the task slug `taskview serve --recordings` gives it,
 * the dialect badge, and each subagent card. For a card: the row id (the
 * subagent's tool-call id), the face (type, shown description, status marker
 * text, child count, summary line, chips as [id, text]), and what expanding
 * shows (children as [row test id, message id], the failed children, lines of
 * the full result, the prompt).
 */
const FIXTURES = [
  {
    file: 'tests/fixtures/dialects/acp-frames.jsonl',
    slug: 'acp-frames-jsonl',
    dialect: 'ACP frames (JSON-RPC lines)',
    cards: [{
      id: 'toolu_01Hq3VbAgentTask9x',
      face: {
        type: 'Explore', // rawInput.subagent_type
        description: 'Map tool_call_update handling', // does not start with the type: kept
        descriptionTitle: 'Map tool_call_update handling',
        status: null, // completed
        childCount: '3 tool calls', // Grep, Read, Bash frames naming it as parentToolUseId
        summary: 'Scope: tool_call_update handling in the ACP adapter.',
        // 41870 ms → 41.9s; 23418 → 23.4k; 3 tool uses = 3 children: hidden; resolvedModel
        chips: [['duration', '41.9s'], ['tokens', '23.4k tokens'], ['model', 'claude-haiku-4-5-20251001']],
        notLoaded: false,
      },
      children: [['message-tool_search', 'toolu_01GrepChild4kLm'], ['message-tool_read', 'toolu_01ReadChild7pQr'],
        ['message-tool_execute', 'toolu_01BashChild2sTu']],
      failedChildren: ['toolu_01BashChild2sTu'],
      resultLines: [
        'Scope: tool_call_update handling in the ACP adapter.',
        'convertToolCallResultUpdate (adapter_tools.go:812) builds the tool_update event.',
        'A nil status keeps the previous status; only completed/failed are terminal.',
        'parent_tool_call_id comes from _meta.claudeCode.parentToolUseId.',
        'Key files: apps/backend/internal/agentctl/server/adapter/transport/acp/adapter_tools.go',
      ],
      resultExcludes: ['agentId: a3f9c2e1b7d40c5e8', 'total_tokens: 23418'], // the usage trailer is stripped
      prompt: 'Find where the ACP adapter converts tool_call_update frames into agent events. Report the function names, the file paths, and how a missing status is treated. Read-only: do not edit files.',
    }],
  },
  {
    file: 'tests/fixtures/dialects/claude-code-session.jsonl',
    slug: 'claude-code-session-jsonl',
    dialect: 'Claude Code session JSONL',
    cards: [{
      id: 'toolu_01Kx7TaskBilling3qZ',
      face: {
        type: 'Explore',
        description: 'Map Stripe webhook retries',
        descriptionTitle: 'Map Stripe webhook retries',
        status: null,
        childCount: '3 tool calls', // the sidechain's Grep, Read and Bash
        summary: 'Webhook retries live in two places:',
        // 52344 ms → 52.3s; 24781 → 24.8k; 3 = children: hidden; no resolvedModel: the
        // sidechain records' message.model
        chips: [['duration', '52.3s'], ['tokens', '24.8k tokens'], ['model', 'claude-haiku-4-5-20251001']],
        notLoaded: false,
      },
      children: [['message-tool_search', 'toolu_01SubGrep8hJk'], ['message-tool_read', 'toolu_01SubRead2mNp'],
        ['message-tool_execute', 'toolu_01SubBash5qRs']],
      failedChildren: ['toolu_01SubBash5qRs'], // is_error: true
      resultLines: [
        'Webhook retries live in two places:',
        'src/billing/webhooks.ts:88 handleStripeEvent() re-enqueues on 5xx, max 5 attempts (MAX_WEBHOOK_RETRIES).',
        'src/jobs/retry-queue.ts:41 uses exponential backoff (2^n * 30s).',
        'Idempotency: events are deduplicated by event.id in the processed_events table, so replays are safe.',
        'Tests for the retry path currently fail (see npm test -- webhooks): 1 failing assertion on the backoff cap.',
      ],
      resultExcludes: ['agentId: a3f9c2e1b7d40c5e8', 'duration_ms: 52344'],
      prompt: 'Find every place the billing service retries failed Stripe webhooks. Report file paths, the retry limit, and whether retries are idempotent. Read-only: do not edit files.',
    }],
  },
  {
    file: 'tests/fixtures/dialects/gadget-turns.json',
    slug: 'gadget-turns-json',
    dialect: 'gadget turns',
    cards: [
      {
        id: 'call_7f3a01', // structured `subagent` record
        face: {
          type: 'reviewer', // parameters.subagentType
          description: 'Audit invoice parser',
          descriptionTitle: 'Audit invoice parser',
          status: null,
          childCount: '3 tool calls', // subagent.toolCalls
          summary: 'One bug found.',
          // stats: 18342 ms → 18.3s; 9120 + 611 = 9731 → 9.7k; toolCallCount 3 = children: hidden
          chips: [['duration', '18.3s'], ['tokens', '9.7k tokens'], ['model', 'gpt-5-mini']],
          notLoaded: false,
        },
        // subagent.thinking first, then its tool calls
        children: [['message-thinking', null], ['message-tool_search', 'call_7f3a01_1'],
          ['message-tool_read', 'call_7f3a01_2'], ['message-tool_execute', 'call_7f3a01_3']],
        childTexts: ['Start with the conversion path, then the rounding helpers.'],
        failedChildren: ['call_7f3a01_3'], // its response envelope says success: false
        resultLines: [
          'One bug found.',
          "invoice.ts:88 rounds to 2 decimals BEFORE converting currency, so JPY totals drift.",
          "Suggest converting first, then rounding with the target currency's minor unit.",
        ],
        resultExcludes: [],
        prompt: 'Read src/billing/invoice.ts and list any currency or rounding bugs. Do not edit files.',
      },
      {
        id: 'call_8a1b01', // legacy JSON envelope
        face: {
          type: 'subagent', // no subagentType
          description: 'Find parseInvoice callers',
          descriptionTitle: 'Find parseInvoice callers',
          status: null, // success: true
          childCount: null,
          summary: 'Found 2 call sites of parseInvoice:',
          // the envelope's other data keys are read as stats; no children, so the tools chip shows
          chips: [['tools', '2 tools'], ['model', 'gpt-5-mini']],
          notLoaded: false,
        },
        children: [],
        failedChildren: [],
        resultLines: ['Found 2 call sites of parseInvoice:', 'src/billing/invoice.ts:14', 'src/api/routes/invoices.ts:57'],
        resultExcludes: ['"success"'],
        prompt: 'List every caller of parseInvoice.',
      },
      {
        id: 'call_9c2d01', // legacy plain-text response, shown raw
        face: {
          type: 'subagent',
          description: 'Summarize auth middleware',
          descriptionTitle: 'Summarize auth middleware',
          status: null,
          childCount: null,
          summary: 'Subagent timed out after 120s. Partial notes:',
          chips: [],
          notLoaded: false,
        },
        children: [],
        failedChildren: [],
        resultLines: ['Subagent timed out after 120s. Partial notes:', 'verifies JWT with RS256', 'refresh path not reviewed'],
        resultExcludes: [],
        prompt: 'Summarize src/middleware/auth.ts.',
      },
    ],
  },
  {
    file: 'tests/fixtures/session-review-wave.json',
    slug: 'session-review-wave-json',
    dialect: 'kandev message list',
    cards: [
      {
        id: 'm013',
        face: {
          type: 'code-reviewer',
          description: 'pass over the closure diff', // "Code-reviewer " restates the type
          descriptionTitle: 'Code-reviewer pass over the closure diff',
          status: null,
          childCount: '3 tool calls', // m015, m017, m019 name toolu_A
          summary: 'VERDICT: REQUEST_CHANGES',
          // 243117 ms → 4m 03s; 48213 → 48.2k; 3 = children: hidden
          chips: [['duration', '4m 03s'], ['tokens', '48.2k tokens'], ['model', 'claude-opus-4-8[1m]']],
          notLoaded: false,
        },
        children: [['message-tool_read', 'm015'], ['message-tool_search', 'm017'], ['message-tool_execute', 'm019']],
        failedChildren: [],
        resultLines: [
          'VERDICT: REQUEST_CHANGES',
          'src/sync/SyncRunner.ts:88 - the closure captures a stale cursor; re-read it inside the loop.',
          'src/sync/closure.ts:14 - captureCursor is exported but unused.',
        ],
        resultExcludes: [],
        prompt: 'Review /tmp/closure.diff for correctness. Reply with VERDICT: APPROVE or VERDICT: REQUEST_CHANGES first.',
      },
      {
        id: 'm014',
        face: {
          type: 'test-supervisor',
          description: 'review of new invariant tests', // SPEC.md §3.3's own example
          descriptionTitle: 'Test-supervisor review of new invariant tests',
          status: null,
          childCount: '2 tool calls', // m016, m018 name toolu_B
          summary: 'APPROVE', // the first non-empty line
          // 90278 ms → 1m 30s; 21007 → 21k (".0" dropped); 5 tools ≠ 2 children: shown
          chips: [['duration', '1m 30s'], ['tokens', '21k tokens'], ['tools', '5 tools'], ['model', 'claude-sonnet-4-7']],
          notLoaded: false,
        },
        children: [['message-tool_execute', 'm016'], ['message-tool_execute', 'm018']],
        failedChildren: ['m016'], // status: error
        resultLines: ['APPROVE', 'All three tests fail on main and pass on the branch.'],
        resultExcludes: [],
        prompt: 'Check that the three new invariant tests actually fail without the fix.',
      },
    ],
  },
];

/** Titles of chips worth checking exactly (SPEC.md §3.2: tokens title is the grouped count). */
const CHIP_TITLES = { m013: { tokens: '48,213 tokens' }, m014: { tokens: '21,007 tokens' } };

const CLAUDE_TASK = 'toolu_01Kx7TaskBilling3qZ';
const CLAUDE_AGENT = 'a3f9c2e1b7d40c5e8';

/** The faces of the top-level subagent cards, in order, as a user sees them. */
async function readFaces(page) {
  return page.$$eval('[data-testid="transcript"] .row-slot > [data-testid="subagent-card"]', (cards) => cards.map((card) => {
    const text = (sel) => card.querySelector(sel)?.textContent ?? null;
    const head = ':scope > .card-head > ';
    return {
      id: card.id.replace(/^msg-/, ''),
      face: {
        type: text(`${head}[data-testid="subagent-type"]`),
        description: text(`${head}[data-testid="subagent-description"]`),
        descriptionTitle: card.querySelector(`${head}[data-testid="subagent-description"]`)?.getAttribute('title') ?? null,
        status: text(`${head}[data-testid="subagent-status"]`),
        childCount: text(`${head}[data-testid="subagent-child-count"]`),
        summary: text(':scope > [data-testid="subagent-result-summary"]'),
        chips: [...card.querySelectorAll(':scope > [data-testid="subagent-meta"] > .chip')]
          .map((c) => [c.dataset.testid.replace('subagent-meta-', ''), c.textContent]),
        notLoaded: card.querySelector(':scope > [data-testid="subagent-not-loaded"]') !== null,
      },
      chipTitles: Object.fromEntries([...card.querySelectorAll(':scope > [data-testid="subagent-meta"] > .chip')]
        .map((c) => [c.dataset.testid.replace('subagent-meta-', ''), c.getAttribute('title')])),
      summaryTitle: card.querySelector(':scope > [data-testid="subagent-result-summary"]')?.getAttribute('title') ?? null,
      expandable: card.querySelector(':scope > button.card-head') !== null,
    };
  }));
}

/** Opens `url` and waits until the transcript is loaded (dialect badge shown). */
async function open(page, url, dialect) {
  await page.goto(url);
  await page.getByTestId('dialect').waitFor({ timeout: 20000 });
  expectEqual(await page.getByTestId('dialect').textContent(), dialect, 'dialect badge');
  await page.locator('[data-testid="subagent-card"]').first().waitFor();
}

/** Checks the faces against a fixture's expected cards. */
async function checkFaces(page, fixture) {
  const faces = await readFaces(page);
  expectEqual(faces.map((f) => f.id), fixture.cards.map((c) => c.id), 'card order');
  for (const [i, card] of fixture.cards.entries()) {
    expectEqual(faces[i].face, card.face, `face of ${card.id}`);
    expectEqual(faces[i].summaryTitle, card.face.summary, `summary title of ${card.id}`);
    expectEqual(faces[i].expandable, true, `${card.id} is expandable`);
    for (const [chip, title] of Object.entries(CHIP_TITLES[card.id] ?? {})) {
      expectEqual(faces[i].chipTitles[chip], title, `${chip} chip title of ${card.id}`);
    }
  }
}

/** Whitespace collapsed, markdown code ticks dropped: text as read. */
const plain = (s) => s.replace(/`/g, '').replace(/\s+/g, ' ').trim();

/** Expands every card and checks its children, failed children, result and prompt. */
async function checkExpanded(page, fixture) {
  for (const card of fixture.cards) {
    const root = page.locator(`[id="msg-${card.id}"]`);
    const head = root.locator(':scope > button.card-head');
    expectEqual(await head.getAttribute('aria-expanded'), 'false', `${card.id} starts collapsed`);
    await head.click();
    await page.waitForFunction((id) => document.getElementById(`msg-${id}`)
      ?.querySelector(':scope > button.card-head')?.getAttribute('aria-expanded') === 'true', card.id);
    expectEqual(await root.locator(':scope > [data-testid="subagent-result-summary"]').count(), 0,
      `${card.id}: no summary line while expanded`);

    const children = await root.locator(':scope > .card-body > .card-children > [data-testid]').evaluateAll(
      (rows) => rows.map((r) => [r.dataset.testid, r.id.replace(/^msg-/, '')]));
    expectEqual(children.map(([t, id], i) => [t, card.children[i]?.[1] === null ? null : id]), card.children,
      `children of ${card.id}`);
    for (const text of card.childTexts ?? []) {
      const all = plain(await root.locator(':scope > .card-body > .card-children').innerText());
      if (!all.includes(text)) throw new Error(`${card.id}: child text "${text}" not shown in "${all}"`);
    }
    const failed = await root.locator(':scope > .card-body > .card-children > [data-testid] .tool[data-state="failed"]')
      .evaluateAll((tools) => tools.map((t) => t.closest('[id^="msg-"]').id.replace(/^msg-/, '')));
    expectEqual(failed, card.failedChildren, `failed children of ${card.id}`);

    const result = plain(await root.locator(':scope > .card-body > [data-testid="subagent-result-text"]').innerText());
    for (const line of card.resultLines) {
      if (!result.includes(plain(line))) throw new Error(`${card.id}: result lacks "${line}": "${result}"`);
    }
    for (const gone of card.resultExcludes) {
      if (result.includes(gone)) throw new Error(`${card.id}: result shows "${gone}": "${result}"`);
    }
    const prompt = root.locator(':scope > .card-body > [data-testid="subagent-prompt"]');
    expectEqual(await prompt.getAttribute('open'), null, `${card.id}: prompt starts closed`);
    await prompt.locator('summary').click();
    expectEqual(plain(await prompt.locator('pre').innerText()), plain(card.prompt), `prompt of ${card.id}`);
  }
}

/** A recordings folder: copies of the fixtures, plus the Claude Code session
 * split the way newer Claude Code writes it (main file + subagents/agent-<id>.jsonl). */
function recordingsFolder() {
  const dir = mkdtempSync(path.join(tmpdir(), 'taskview-e2e-dialects-'));
  for (const f of FIXTURES) writeFileSync(path.join(dir, path.basename(f.file)), readFileSync(path.join(ROOT, f.file)));
  const lines = readFileSync(path.join(ROOT, 'tests/fixtures/dialects/claude-code-session.jsonl'), 'utf8')
    .split('\n').filter((l) => l.trim());
  const sidechain = lines.filter((l) => JSON.parse(l).isSidechain === true);
  if (sidechain.length !== 8) throw new Error(`expected the fixture's 8 sidechain records, found ${sidechain.length}`);
  writeFileSync(path.join(dir, 'claude-split.jsonl'), `${lines.filter((l) => !sidechain.includes(l)).join('\n')}\n`);
  mkdirSync(path.join(dir, 'claude-split', 'subagents'), { recursive: true });
  writeFileSync(path.join(dir, 'claude-split', 'subagents', `agent-${CLAUDE_AGENT}.jsonl`), `${sidechain.join('\n')}\n`);
  return dir;
}

export default async function (suite) {
  const folder = recordingsFolder();
  suite.cleanups.push(() => rmSync(folder, { recursive: true, force: true }));
  const server = await suite.server(['--recordings', folder]);
  // Tall enough that every row of these small transcripts is rendered.
  const newPage = () => suite.page({ viewport: { width: 1280, height: 2400 } });
  const messagesUrl = (slug) => `/api/v1/task-sessions/sess-rec-${slug}/messages?limit=1000`;
  const viewUrl = (src) => `${server.url}view?src=${encodeURIComponent(src)}`;

  for (const fixture of FIXTURES) {
    const name = path.basename(fixture.file);
    const page = await newPage();
    await suite.test(`${name} through /view?src= shows the expected card faces`, async () => {
      await open(page, viewUrl(serveFile(fixture.file)), fixture.dialect);
      await checkFaces(page, fixture);
    });
    await suite.test(`${name}: expanded cards show their children, full result and prompt`, async () => {
      await checkExpanded(page, fixture);
      expectNoErrors(page);
    });
  }

  await suite.test('every fixture in the recordings folder is a task; subagent files are not', async () => {
    const snapshot = await (await fetch(`${server.url}api/v1/workflows/wf-recordings/snapshot`)).json();
    const ids = snapshot.tasks.map((t) => t.id).sort();
    expectEqual(ids, ['rec-claude-split-jsonl', ...FIXTURES.map((f) => `rec-${f.slug}`)].sort(), 'recording tasks');
  });

  for (const fixture of FIXTURES) {
    const name = path.basename(fixture.file);
    await suite.test(`${name} as a recording: its session's messages render the same cards`, async () => {
      const page = await newPage();
      await open(page, viewUrl(messagesUrl(fixture.slug)), 'kandev message list');
      await checkFaces(page, fixture);
      await checkExpanded(page, fixture);
      expectNoErrors(page);
    });
  }

  await suite.test('a Claude Code session split into main file + subagents/agent-<id>.jsonl renders the same card', async () => {
    const page = await newPage();
    const claude = FIXTURES.find((f) => f.slug === 'claude-code-session-jsonl');
    await open(page, viewUrl(messagesUrl('claude-split-jsonl')), 'kandev message list');
    await checkFaces(page, claude);
    await checkExpanded(page, claude);
    expectNoErrors(page);
  });

  await suite.test('the split session without its subagent file says "transcript not loaded" and keeps its metrics', async () => {
    const page = await newPage();
    const alone = serveFile({
      name: 'claude-main-only.jsonl',
      text: readFileSync(path.join(folder, 'claude-split.jsonl'), 'utf8'),
    });
    await open(page, viewUrl(alone), 'Claude Code session JSONL');
    const [card] = await readFaces(page);
    const claude = FIXTURES.find((f) => f.slug === 'claude-code-session-jsonl').cards[0];
    expectEqual(card.id, CLAUDE_TASK, 'card');
    expectEqual(card.face, {
      ...claude.face,
      childCount: null,
      // without children the reported 3 tool uses are shown; the model came from the child records
      chips: [['duration', '52.3s'], ['tokens', '24.8k tokens'], ['tools', '3 tools']],
      notLoaded: true,
    }, 'face without the subagent file');
    expectNoErrors(page);
  });
}
