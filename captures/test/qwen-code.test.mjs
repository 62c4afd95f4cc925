import assert from 'node:assert/strict';
import { test } from 'node:test';
import { dialect } from '../lib/clis/qwen-code.mjs';
import { agent, report, scenario, send, shell, spawn, turn, waitFor } from '../lib/dsl.mjs';
import { Engine } from '../lib/engine.mjs';
import { conversation, results, user } from './helpers.mjs';

const story = () =>
  scenario({
    name: 'qwen-test',
    title: 'qwen test',
    story: 'A planner runs in the background, gets a message; a shell runs in the background.',
    prompt: 'Main prompt of the qwen test.',
    main: [
      turn(spawn('plan'), shell('sleep 3; wc -l src/*.rs', { background: true, key: 'count' })),
      turn(send('plan', 'Mind the lexer.')),
      waitFor(['count']),
      report('done'),
    ],
    agents: { plan: agent({ type: 'Plan', description: 'Plan it', prompt: 'Prompt of the planner.', steps: [report('plan')] }) },
  });

const launchText = 'Background agent launched successfully.\ntask_id: planner-call_1 (internal ID — do not mention to the user.)\nIts result arrives as a <task-notification> for this task_id in a later turn.';
const shellText = 'Background shell started.\nid: bg_1234\npid: 1\noutput file: /h/shell-bg_1234.output\nstatus file: /h/shell-bg_1234.status\nTo check whether this process is still running, Read the status file.';

/** Plays main#0 and returns the engine, the launch reply and the conversation after it. */
function launched() {
  const engine = new Engine(story(), dialect, { cwd: '/w', clock: () => 0 });
  const first = engine.respond(conversation([user('Main prompt of the qwen test.')]));
  const [agentCall, shellCall] = first.answer.calls;
  const messages = [user('Main prompt of the qwen test.'), { role: 'assistant', parts: first.answer.calls.map((c) => ({ type: 'call', ...c })) }, results([agentCall.id, launchText], [shellCall.id, shellText])];
  return { engine, first, messages };
}

test('qwen: a scenario type qwen lacks becomes its stand-in project agent; a background shell asks for is_background', () => {
  const { first } = launched();
  assert.deepEqual(first.answer.calls.map((c) => [c.name, c.input]), [
    ['agent', { description: 'Plan it', prompt: 'Prompt of the planner.', subagent_type: 'planner' }],
    ['run_shell_command', { command: 'sleep 3; wc -l src/*.rs', description: 'sleep 3; wc -l src/*.rs', is_background: true }],
  ]);
});

test('qwen: a deferred tool is reviewed once with tool_search, then called through tool_call with the task id from the launch result', () => {
  const { engine, messages } = launched();
  const review = engine.respond(conversation(messages));
  assert.deepEqual(review.answer.calls.map((c) => [c.name, c.input]), [['tool_search', { query: 'select:send_message' }]]);
  const reviewed = [...messages, { role: 'assistant', parts: review.answer.calls.map((c) => ({ type: 'call', ...c })) }, results([review.answer.calls[0].id, '<functions>…</functions>'])];
  const sending = engine.respond(conversation(reviewed));
  assert.deepEqual(sending.answer.calls.map((c) => [c.name, c.input]), [['tool_call', { name: 'send_message', arguments: { task_id: 'planner-call_1', message: 'Mind the lexer.' } }]]);
});

test('qwen: waiting for a background shell keeps the turn going (an intentional sleep) and reads its status file until it says it ended', () => {
  const { engine, messages } = launched();
  const review = engine.respond(conversation(messages));
  let played = [...messages, { role: 'assistant', parts: review.answer.calls.map((c) => ({ type: 'call', ...c })) }, results([review.answer.calls[0].id, 'ok'])];
  const sending = engine.respond(conversation(played));
  played = [...played, { role: 'assistant', parts: sending.answer.calls.map((c) => ({ type: 'call', ...c })) }, results([sending.answer.calls[0].id, '{"success":true}'])];
  const polling = engine.respond(conversation(played));
  assert.deepEqual(polling.answer.waiting, ['count']);
  assert.deepEqual(polling.answer.calls.map((c) => c.name), ['run_shell_command', 'read_file']);
  assert.match(polling.answer.calls[0].input.command, /^sleep 2 # intentional-sleep/);
  assert.equal(polling.answer.calls[1].input.file_path, '/h/shell-bg_1234.status');
  const [pause, status] = polling.answer.calls;
  played = [...played, { role: 'assistant', parts: polling.answer.calls.map((c) => ({ type: 'call', ...c })) }, results([pause.id, ''], [status.id, '{\n  "id": "bg_1234",\n  "status": "completed"\n}'])];
  const done = engine.respond(conversation(played));
  assert.equal(done.answer.text, 'done');
});

test('qwen: the managed-memory extractor is a side request, answered without touching any script', () => {
  const engine = new Engine(story(), dialect, { cwd: '/w', clock: () => 0 });
  const side = engine.respond({ ...conversation([user('Main prompt of the qwen test.')]), system: 'You are now acting as the managed memory extraction subagent for an AI coding assistant.' });
  assert.equal(side.answer.kind, 'side');
  assert.equal(engine.state.get('main').next, 0);
});
