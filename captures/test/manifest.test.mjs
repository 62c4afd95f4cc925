import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, writeFileSync, mkdirSync, symlinkSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { recordInIndex } from '../lib/capture.mjs';
import { cli as claudeCode } from '../lib/clis/claude-code.mjs';
import { cli as qwenCode } from '../lib/clis/qwen-code.mjs';
import deepWave from '../scenarios/deep-wave.mjs';
import { agent, fail, report, scenario, spawn, stop, turn, waitFor } from '../lib/dsl.mjs';
import { holds, listFiles, observedTimeline, scriptedTimeline, sentCalls, serverSummary } from '../lib/manifest.mjs';
import slowWave from '../scenarios/slow-wave.mjs';

const { isBackground } = claudeCode;

const story = scenario({
  name: 't', title: 'T', story: '', prompt: 'Main.',
  main: [turn(spawn('bg'), spawn('fg'), { after: 100 }), turn(stop('bg')), waitFor(['bg']), report('ok')],
  agents: {
    bg: agent({ type: 'Explore', description: 'bg', prompt: 'BG.', steps: [turn(spawn('deep'), { after: 200 }), report('x', { after: 300 })] }),
    fg: agent({ type: 'Plan', description: 'fg', prompt: 'FG.', background: false, steps: [fail.http(500, { after: 50 })] }),
    deep: agent({ fork: true, description: 'deep', prompt: 'DEEP.', steps: [report('d', { after: 400 })] }),
  },
});

test('holds: one entry per subagent with type, depth, launch, outcome and scripted duration, and the counts over them', () => {
  const h = holds(story, { isBackground });
  assert.equal(h.subagents, 3);
  assert.deepEqual(h.byType, { Explore: 1, Plan: 1, fork: 1 });
  assert.deepEqual(h.background, ['bg']);
  assert.deepEqual(h.foreground, ['fg', 'deep']);
  assert.deepEqual(h.nested, ['deep']);
  assert.equal(h.maxDepth, 2);
  assert.deepEqual(h.forks, ['deep']);
  assert.deepEqual(h.failed, ['fg']);
  assert.deepEqual(h.cancelled, ['bg']);
  const bg = h.agents.find((a) => a.key === 'bg');
  assert.equal(bg.launch, "background (the CLI's default)");
  assert.equal(bg.scriptedMs, 500);
  assert.equal(h.agents.find((a) => a.key === 'fg').how, 'HTTP 500 api_error');
});

test('holds: the agents an interrupt cuts off say how the CLI was interrupted (SIGINT, or the client\'s own cancel)', () => {
  const cut = { ...story, interrupt: { whileRunning: ['deep'], after: 10 } };
  const how = (options) => holds(cut, { isBackground, ...options }).agents.find((a) => a.key === 'deep');
  assert.deepEqual([how({}).status, how({}).how], ['interrupted', 'the CLI got SIGINT while it ran; no result']);
  assert.equal(how({ interruptWith: 'session/cancel' }).how, 'the client sent session/cancel while it ran; no result');
  assert.deepEqual(holds(cut, { isBackground }).interrupted, ['deep']);
});

test('the scripted timeline: launches at the launching reply, a foreground child blocks its parent, nested children start inside their parent', () => {
  const t = scriptedTimeline(story, { isBackground });
  assert.deepEqual(t.bg, { start: 100, end: 100 + 200 + 400 + 300 });
  assert.deepEqual(t.deep, { start: 300, end: 700 });
  assert.deepEqual(t.fg, { start: 100, end: 150 });
});

test('slow-wave: the scripted running count steps 1, 2, 3, 4, 3, 2, 1, 0, at least 1.5 s between changes', () => {
  const t = scriptedTimeline(slowWave, { isBackground });
  const changes = Object.entries(t)
    .filter(([k]) => k !== 'main')
    .flatMap(([, s]) => [[s.start, +1], [s.end, -1]])
    .sort((a, b) => a[0] - b[0]);
  let running = 0;
  const counts = changes.map(([, d]) => (running += d));
  assert.deepEqual(counts, [1, 2, 3, 4, 3, 2, 1, 0]);
  for (let i = 1; i < changes.length; i++) assert.ok(changes[i][0] - changes[i - 1][0] >= 1500, `change ${i} is ${changes[i][0] - changes[i - 1][0]} ms after the one before`);
  const lifetimes = Object.entries(t).filter(([k]) => k !== 'main').map(([, s]) => s.end - s.start).sort((a, b) => a - b);
  assert.deepEqual(lifetimes, [3000, 4500, 7000, 14000]);
});

test('the observed timeline reads launch, first request and end of each agent from the server log', () => {
  const log = [
    { agent: 'main', t: 0, sent: 110, launches: ['a'] },
    { agent: 'a', t: 130, sent: 400 },
    { agent: 'a', t: 420, sent: 900, final: true },
    { agent: 'b', t: 500, aborted: true, sent: 800 },
  ];
  assert.deepEqual(observedTimeline(log), {
    a: { launched: 110, firstRequest: 130, ended: 900 },
    main: { launched: null, firstRequest: 0, ended: null },
    b: { launched: null, firstRequest: 500, ended: null, cutOff: 800 },
  });
});

test('the server summary counts requests by API and lists unmatched requests, failures, tool errors and egress attempts', () => {
  const log = [
    { api: 'anthropic', agent: 'main', kind: 'turn' },
    { api: 'anthropic', agent: null, kind: 'unmatched' },
    { api: 'anthropic', agent: 'a', kind: 'fail', status: 500, toolErrors: ['t1'] },
    { method: 'CONNECT', path: 'statsig.anthropic.com:443', egress: true },
    { method: 'GET', path: '/v1/nothing', unknown: true },
  ];
  const s = serverSummary(log);
  assert.equal(s.requests, 5);
  assert.deepEqual(s.byApi, { anthropic: 3, CONNECT: 1, GET: 1 });
  assert.equal(s.unmatched, 1);
  assert.deepEqual(s.failures, [{ agent: 'a', status: 500 }]);
  assert.deepEqual(s.toolErrors, [{ agent: 'a', callId: 't1' }]);
  assert.deepEqual(s.egressAttempts, ['statsig.anthropic.com:443']);
  assert.deepEqual(s.unknownRoutes, ['GET /v1/nothing']);
});

/** A temporary folder removed when the test ends. */
function scratchDir(t) {
  const dir = mkdtempSync(join(tmpdir(), 'captures-test-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

test('listFiles lists every file with its size, links marked and not followed', (t) => {
  const dir = scratchDir(t);
  mkdirSync(join(dir, 'a', 'b'), { recursive: true });
  writeFileSync(join(dir, 'a', 'b', 'x.jsonl'), '12345');
  writeFileSync(join(dir, 'top.json'), '{}');
  symlinkSync('/nonexistent', join(dir, 'a', 'link'));
  const files = listFiles(dir);
  assert.deepEqual(files.map((f) => [f.path, f.link]), [['a/b/x.jsonl', false], ['a/link', true], ['top.json', false]]);
  assert.equal(files[0].bytes, 5);
});

test('the index manifest of a CLI version keeps one entry per scenario, replaced on rerun', (t) => {
  const dir = scratchDir(t);
  const m = (name, status) => ({ cli: { name: 'x', version: '1' }, node: 'v20', isolation: { mode: 'netns' }, scenario: { name, title: name }, status, problems: [], holds: { subagents: 2 } });
  recordInIndex(dir, m('one', 'incomplete'));
  recordInIndex(dir, m('two', 'captured'));
  recordInIndex(dir, m('one', 'captured'));
  const index = JSON.parse(readFileSync(join(dir, 'manifest.json'), 'utf8'));
  assert.deepEqual(Object.keys(index.scenarios), ['one', 'two']);
  assert.equal(index.scenarios.one.status, 'captured');
  assert.equal(index.isolation, 'netns');
  recordInIndex(dir, { cli: { name: 'x', version: '1' }, node: 'v20', scenario: { name: 'three', title: 't' }, status: 'unsupported', unsupported: { need: 'fork', reason: 'no forks' } });
  const again = JSON.parse(readFileSync(join(dir, 'manifest.json'), 'utf8'));
  assert.deepEqual(again.scenarios.three, { status: 'unsupported', title: 't', unsupported: { need: 'fork', reason: 'no forks' } });
});

test('the calls sent each agent count delivered answers once: not a retry\'s replay, not an answer cut off', () => {
  const log = [
    { agent: 'a', calls: ['Read', 'Bash'] },
    { agent: 'a', calls: ['Read', 'Bash'], replay: true },
    { agent: 'a', calls: ['Agent'], aborted: true },
    { agent: 'b', calls: ['ToolSearch'] },
    { agent: 'b', calls: ['SendMessage'] },
    { agent: null, kind: 'side' },
  ];
  assert.deepEqual(sentCalls(log), { a: { Read: 1, Bash: 1 }, b: { ToolSearch: 1, SendMessage: 1 } });
});

test('holds: a launch the CLI refuses is a failed agent with no steps, and what only it would have launched is not held', () => {
  const h = holds(deepWave, { isBackground: qwenCode.isBackground, refuses: qwenCode.refuses });
  assert.deepEqual(h.refused, ['number-checker', 'ident-checker', 'error-checker']);
  assert.deepEqual(h.notLaunched, ['atom-prober']);
  assert.equal(h.subagents, 8);
  const refused = h.agents.find((a) => a.key === 'error-checker');
  assert.equal(refused.status, 'failed');
  assert.match(refused.how, /^refused at launch: /);
  assert.deepEqual([refused.steps, refused.actions], [0, {}]);
  const claude = holds(deepWave, { isBackground });
  assert.deepEqual([claude.refused, claude.notLaunched, claude.subagents], [[], [], 9]);
});
