import assert from 'node:assert/strict';
import { test } from 'node:test';
import { agent, fail, needsOf, report, scenario, send, shell, spawn, stop, turn, waitFor, workflow } from '../lib/dsl.mjs';
import { SCENARIOS } from '../scenarios/index.mjs';

const leaf = (prompt, more = {}) => agent({ type: 'Explore', description: prompt, prompt, steps: [report('done')], ...more });

test('a scenario knows each agent\'s parent and depth from who launches it', () => {
  const s = scenario({
    name: 't', title: 'T', story: '', prompt: 'Main.',
    main: [turn(spawn('a')), waitFor(['a']), report('ok')],
    agents: { a: agent({ type: 'general-purpose', description: 'a', prompt: 'Prompt A.', steps: [turn(spawn('b')), report('a')] }), b: leaf('Prompt B.') },
  });
  assert.deepEqual([...s.agents.values()].map((d) => [d.key, d.parent, d.depth]), [['main', null, 0], ['a', 'main', 1], ['b', 'a', 2]]);
});

test('a scenario refuses an unknown agent, one launched twice, one never launched, and a wait for nothing', () => {
  const base = { name: 't', title: 'T', story: '', prompt: 'Main.' };
  assert.throws(() => scenario({ ...base, main: [turn(spawn('x'))] }), /unknown agent "x"/);
  assert.throws(() => scenario({ ...base, main: [turn(spawn('a'), spawn('a'))], agents: { a: leaf('A.') } }), /launched twice/);
  assert.throws(() => scenario({ ...base, main: [report('x')], agents: { a: leaf('A.') } }), /never launched/);
  assert.throws(() => scenario({ ...base, main: [waitFor(['nobody'])] }), /waits for unknown "nobody"/);
});

test('a scenario refuses a prompt inside another prompt (prompts identify the conversations)', () => {
  const base = { name: 't', title: 'T', story: '', prompt: 'Main prompt. Check the lexer.' };
  assert.throws(() => scenario({ ...base, main: [turn(spawn('a'))], agents: { a: leaf('Check the lexer.') } }), /inside the prompt of "main"/);
});

test('needsOf lists what a scenario asks of a CLI', () => {
  const s = scenario({
    name: 't', title: 'T', story: '', prompt: 'Main.',
    main: [
      turn(spawn('a'), spawn('b'), spawn('f'), shell('sleep 1', { background: true, key: 'sh' })),
      turn(send('a', 'hi'), stop('b')),
      turn(workflow({ key: 'w', name: 'w', description: 'w', phases: [{ title: 'P', keys: ['wa'] }] })),
      waitFor(['w', 'sh']),
    ],
    agents: { a: leaf('Alpha.', { background: false }), b: leaf('Beta.', { background: true }), f: leaf('Fork.', { fork: true }), wa: leaf('Workflow agent.') },
  });
  assert.deepEqual(needsOf(s), ['background-agents', 'background-shell', 'foreground-agents', 'fork', 'send', 'stop', 'workflow']);
  const failing = scenario({ name: 'u', title: 'U', story: '', prompt: 'M.', main: [turn(spawn('a'))], agents: { a: agent({ prompt: 'A.', description: 'a', steps: [fail.http(500)] }) } });
  assert.deepEqual(needsOf(failing), ['api-errors']);
});

test('a turn takes its delay from a trailing options object, and refuses anything that is not a part', () => {
  assert.equal(turn(shell('ls'), { after: 900 }).after, 900);
  assert.equal(turn(shell('ls')).parts.length, 1);
  assert.throws(() => turn('just a string'), /not a part/);
});

test('every scenario has a unique name, a story and a prompt, and launches at least what its story counts', () => {
  const names = SCENARIOS.map((s) => s.name);
  assert.equal(new Set(names).size, names.length);
  for (const s of SCENARIOS) {
    assert.ok(s.story.length > 80, `${s.name}: a story`);
    assert.ok(s.prompt.length > 20, `${s.name}: a prompt`);
  }
  const count = (name) => SCENARIOS.find((s) => s.name === name).agents.size - 1;
  assert.ok(count('parallel-wave') >= 4);
  assert.ok(count('long-session') >= 40);
  assert.equal(count('background-shell'), 0);
});
