import assert from 'node:assert/strict';
import { test } from 'node:test';
import { dialect } from '../lib/clis/claude-code.mjs';
import { agent, fail, report, say, scenario, send, shell, spawn, stop, turn, waitFor } from '../lib/dsl.mjs';
import { Engine, identify, repliesAfter } from '../lib/engine.mjs';
import { assistant, conversation, results, user } from './helpers.mjs';

const story = () =>
  scenario({
    name: 'engine-test',
    title: 'Engine test',
    story: 'A main agent launches two agents, waits, messages one and stops the other.',
    prompt: 'Main prompt of the engine test.',
    main: [
      turn(say('Launching.'), spawn('a'), spawn('b')),
      waitFor(['a']),
      turn(send('b', 'Hurry up.')),
      turn(stop('b')),
      report('## Summary\n\nAll done.'),
    ],
    agents: {
      a: agent({ type: 'Explore', description: 'Agent A', prompt: 'Prompt of agent a.', steps: [turn(shell('ls', { description: 'List' }), { after: 10 }), report('## Summary\n\nA is done.')] }),
      b: agent({ type: 'Plan', description: 'Agent B', prompt: 'Prompt of agent b, the longer one.', background: false, steps: [fail.http(500)] }),
    },
  });

const launched = (id) => `Async agent launched successfully.\nagentId: ${id} (internal ID - do not mention to user.)\noutput_file: /tmp/x`;
const notification = (id) => `<task-notification>\n<task-id>${id}</task-id>\n<status>completed</status>\n<result>done</result>\n</task-notification>`;

/** Plays the main agent's first reply and returns the engine and that reply. */
function launch() {
  const engine = new Engine(story(), dialect, { cwd: '/work', clock: () => 0 });
  const first = engine.respond(conversation([user('Main prompt of the engine test.')]));
  return { engine, first };
}

/** The main conversation after the launch, with the launch results and `more` messages. */
function afterLaunch(first, more = []) {
  const [a, b] = first.answer.calls;
  return [user('Main prompt of the engine test.'), assistant('Launching.', [a, b]), results([a.id, launched('aaaa1111')], [b.id, launched('bbbb2222')]), ...more];
}

test('identify: the agent whose prompt is in the latest user message that holds one (a fork inherits its parent history)', () => {
  const s = story();
  assert.deepEqual(identify(s, [user('Main prompt of the engine test.')]), { key: 'main', index: 0 });
  const fork = [user('Main prompt of the engine test.'), assistant('…'), user('<fork-boilerplate>…</fork-boilerplate>\nYour directive: Prompt of agent a.')];
  assert.deepEqual(identify(s, fork), { key: 'a', index: 2 });
  assert.equal(identify(s, [user('Generate a title for this chat.')]), null);
});

test('identify: when one message holds two prompts, the one that comes last wins (a workflow agent is told the user\'s request first)', () => {
  const relayed = [user('[Workflow harness — user request]\n  Main prompt of the engine test.', '[Workflow harness — computed task]\n  Prompt of agent a.')];
  assert.equal(identify(story(), relayed).key, 'a');
  assert.equal(identify(story(), [user('Prompt of agent a. Prompt of agent b, the longer one.')]).key, 'b');
});

test('repliesAfter counts the assistant messages after the identifying message', () => {
  const messages = [user('x'), assistant('1'), user('r'), assistant('2'), user('r')];
  assert.equal(repliesAfter(messages, 0), 2);
  assert.equal(repliesAfter(messages, 2), 1);
});

test('each agent plays its own script, one step per request, with the CLI\'s tool names and inputs', () => {
  const { engine, first } = launch();
  assert.equal(first.agent, 'main');
  assert.deepEqual(first.answer.calls.map((c) => [c.name, c.input]), [
    ['Agent', { description: 'Agent A', prompt: 'Prompt of agent a.', subagent_type: 'Explore' }],
    ['Agent', { description: 'Agent B', prompt: 'Prompt of agent b, the longer one.', subagent_type: 'Plan', run_in_background: false }],
  ]);
  assert.deepEqual(first.answer.launches, ['a', 'b']);
  const a0 = engine.respond(conversation([user('Prompt of agent a.')], ['Bash']));
  assert.equal(a0.agent, 'a');
  assert.deepEqual(a0.answer.calls.map((c) => [c.name, c.input]), [['Bash', { command: 'ls', description: 'List' }]]);
  assert.equal(a0.answer.after, 10);
  const a1 = engine.respond(conversation([user('Prompt of agent a.'), assistant('', a0.answer.calls), results([a0.answer.calls[0].id, 'src'])], ['Bash']));
  assert.equal(a1.answer.text, '## Summary\n\nA is done.');
  assert.deepEqual(a1.answer.calls, []);
  assert.equal(a1.answer.final, true);
});

test('a request repeated at the same turn (a retry) gets the same answer, and the script does not skip a step', () => {
  const { engine } = launch();
  const ask = () => engine.respond(conversation([user('Prompt of agent a.')]));
  const once = ask();
  const again = ask();
  assert.deepEqual(again.answer, once.answer);
  assert.equal(engine.state.get('a').next, 1);
});

test('a wait answers with an interim text while an awaited agent is out, then goes on once its notification arrived', () => {
  const { engine, first } = launch();
  const waiting = engine.respond(conversation(afterLaunch(first)));
  assert.deepEqual(waiting.answer.waiting, ['a']);
  assert.equal(waiting.answer.text, '0 of 1 reports are in; waiting for: Agent A.');
  assert.deepEqual(waiting.answer.calls, []);
  const more = [assistant(waiting.answer.text), user(notification('aaaa1111'))];
  const next = engine.respond(conversation(afterLaunch(first, more), ['SendMessage']));
  assert.equal(next.answer.waiting, undefined);
  assert.deepEqual(next.answer.calls.map((c) => [c.name, c.input]), [['SendMessage', { to: 'bbbb2222', message: 'Hurry up.' }]]);
});

test('a step calling a deferred tool first loads it with ToolSearch, then makes the call', () => {
  const { engine, first } = launch();
  const notified = [assistant('waiting'), user(notification('aaaa1111'))];
  const loading = engine.respond(conversation(afterLaunch(first, notified), ['Agent']));
  assert.equal(loading.answer.loading, true);
  assert.deepEqual(loading.answer.calls.map((c) => [c.name, c.input]), [['ToolSearch', { query: 'select:SendMessage' }]]);
  const loaded = [...notified, assistant('', loading.answer.calls), results([loading.answer.calls[0].id, 'Tool loaded.'])];
  const sending = engine.respond(conversation(afterLaunch(first, loaded), ['SendMessage']));
  assert.equal(sending.answer.calls[0].name, 'SendMessage');
});

test('stop addresses the agent id the CLI gave in its launch result', () => {
  const { engine, first } = launch();
  const tools = ['SendMessage', 'TaskStop'];
  const waited = [assistant('w'), user(notification('aaaa1111'))];
  const sending = engine.respond(conversation(afterLaunch(first, waited), tools));
  const sent = [...waited, assistant('', sending.answer.calls), results([sending.answer.calls[0].id, '{"success":true}'])];
  const stopping = engine.respond(conversation(afterLaunch(first, sent), tools));
  assert.deepEqual(stopping.answer.calls.map((c) => [c.name, c.input]), [['TaskStop', { task_id: 'bbbb2222' }]]);
});

test('a failure step answers with the scripted error and ends that agent\'s script', () => {
  const { engine } = launch();
  const b = engine.respond(conversation([user('Prompt of agent b, the longer one.')]));
  assert.equal(b.answer.kind, 'fail');
  assert.equal(b.answer.mode, 'http');
  assert.equal(b.answer.status, 500);
  assert.equal(b.answer.retry, false);
  assert.equal(b.answer.final, true);
});

test('a request of no scenario agent gets "OK." and is marked unmatched', () => {
  const { engine } = launch();
  const stray = engine.respond(conversation([user('Something no scenario agent asked.')], ['Bash']));
  assert.equal(stray.agent, null);
  assert.equal(stray.answer.kind, 'unmatched');
  assert.equal(stray.answer.text, 'OK.');
});

test('Claude Code side requests (a title, a prompt suggestion, a tool-less request) get their reply and leave every script alone', () => {
  const { engine } = launch();
  const title = engine.respond({ ...conversation([user('<session>\nMain prompt of the engine test.\n</session>')], []), system: 'You are naming a coding session so the user can pick it out.' });
  assert.equal(title.answer.kind, 'side');
  assert.deepEqual(JSON.parse(title.answer.text), { title: 'Engine test' });
  const suggestion = engine.respond(conversation([user('Main prompt of the engine test.'), assistant('x'), user('[SUGGESTION MODE: Suggest what the user might naturally type next.]')], ['Bash']));
  assert.equal(suggestion.answer.text, '');
  assert.equal(engine.respond(conversation([user('Prompt of agent a.')], [])).answer.kind, 'side');
  assert.equal(engine.state.get('main').next, 1);
  assert.equal(engine.state.get('a').next, 0);
});

test('tool-call ids are the same on every run of a scenario, and differ between calls', () => {
  const one = launch().first.answer.calls.map((c) => c.id);
  const two = launch().first.answer.calls.map((c) => c.id);
  assert.deepEqual(one, two);
  assert.notEqual(one[0], one[1]);
  assert.match(one[0], /^toolu_01[0-9A-Za-z]{24}$/);
});

test('an agent whose script is played out answers "Done." and says so', () => {
  const { engine } = launch();
  const conv = (n) => conversation([user('Prompt of agent b, the longer one.'), ...Array.from({ length: n }, () => assistant('x'))]);
  engine.respond(conv(0));
  const after = engine.respond(conv(1));
  assert.equal(after.answer.exhausted, true);
  assert.equal(after.answer.text, 'Done.');
});

test('the story is finished once the main agent\'s last step has been delivered, not merely chosen', () => {
  const engine = new Engine(scenario({ name: 'one', title: 'One', story: '', prompt: 'Only prompt.', main: [report('done')] }), dialect, { clock: () => 0 });
  const last = engine.respond(conversation([user('Only prompt.')]));
  assert.equal(engine.finished, false);
  engine.delivered(last.agent, last.answer);
  assert.equal(engine.finished, true);
});

test('a later run\'s main agent is finished once its own last step has been delivered', () => {
  const later = scenario({ name: 'later', title: 'Later', story: '', prompt: 'First prompt.', main: [report('one')], then: [{ how: 'resume', prompt: 'Second prompt.', main: [report('two')] }] });
  const engine = new Engine(later, dialect, { clock: () => 0 });
  const first = engine.respond(conversation([user('First prompt.')]));
  engine.delivered(first.agent, first.answer);
  assert.equal(engine.finishedAgent('main-2'), false);
  const second = engine.respond(conversation([user('First prompt.'), assistant('one'), user('Second prompt.')]));
  assert.equal(second.agent, 'main-2');
  engine.delivered(second.agent, second.answer);
  assert.equal(engine.finishedAgent('main-2'), true);
});

test('a failure meant for two requests fails the first two, and the retry after them gets the next step', () => {
  const recovering = scenario({
    name: 'engine-retry-test',
    title: 'Retry test',
    story: 'The API fails twice, then answers.',
    prompt: 'Main prompt of the retry test.',
    main: [fail.http(529, { retry: true, times: 2 }), report('## Summary\n\nRecovered.')],
  });
  const engine = new Engine(recovering, dialect);
  const ask = () => engine.respond(conversation([user('Main prompt of the retry test.')]));
  const [first, second, third, fourth] = [ask(), ask(), ask(), ask()];
  assert.deepEqual([first.answer.kind, second.answer.kind], ['fail', 'fail']);
  assert.equal(first.answer.status, 529);
  assert.equal(second.replay, true);
  assert.equal(third.answer.kind, 'turn');
  assert.equal(third.answer.text, '## Summary\n\nRecovered.');
  assert.deepEqual(fourth.answer, third.answer, 'a later retry of the recovered request gets the same answer');
});
