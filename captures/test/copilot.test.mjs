// Copilot CLI's dialect: scenario actions as its tools, background agents and
// commands named and settled as its results say.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { dialect } from '../lib/clis/copilot.mjs';
import { agent, report, scenario, shell, spawn, turn } from '../lib/dsl.mjs';

const s = scenario({
  name: 't',
  title: 't',
  story: 't',
  prompt: 'go',
  main: [turn(spawn('bg'), spawn('fg'), shell('sleep 1', { background: true, key: 'count' })), report('done')],
  agents: {
    bg: agent({ type: 'Plan', description: 'Plan it', prompt: 'plan', steps: [report('ok')] }),
    fg: agent({ type: 'Explore', description: 'Find it', prompt: 'find', background: false, steps: [report('ok')] }),
  },
});
const ctx = { cwd: '/w', scenario: s, agentIdOf: () => null };

test('copilot: task calls carry name, description, prompt, a built-in agent type and the mode', () => {
  const bg = dialect.call({ action: 'spawn', key: 'bg' }, ctx);
  assert.deepEqual(bg, { name: 'task', input: { name: 'bg', description: 'Plan it', prompt: 'plan', agent_type: 'general-purpose', mode: 'background' } });
  const fg = dialect.call({ action: 'spawn', key: 'fg' }, ctx);
  assert.equal(fg.input.agent_type, 'explore');
  assert.equal(fg.input.mode, 'sync');
  const sh = dialect.call({ action: 'shell', command: 'sleep 1', description: 'd', background: true, task: 'count' }, ctx);
  assert.deepEqual(sh.input, { command: 'sleep 1', description: 'd', mode: 'async', shellId: 'count', initial_wait: 30 });
});

test('copilot: a background agent settles once read_agent shows it done; a command once read_bash shows it exited', () => {
  const launch = 'Agent started in background with agent_id: 90ab-1. You\'ll be notified when it completes.';
  assert.equal(dialect.agentIdFromLaunch(launch), '90ab-1');
  assert.equal(dialect.agentIdFromLaunch('<command started in background with shellId: count>'), 'count');
  const result = (text) => ({ role: 'tool', parts: [{ type: 'result', id: 'r', text, isError: false }] });
  assert.equal(dialect.settled({ launch, agentId: '90ab-1', messages: [result(launch)] }), false);
  assert.equal(dialect.settled({ launch, agentId: '90ab-1', messages: [result('Agent is idle (waiting for messages). agent_id: 90ab-1, status: idle')] }), true);
  assert.equal(dialect.settled({ launch: '## Summary', agentId: null, messages: [] }), true, 'a sync task settles with its result');
  assert.deepEqual(dialect.waitCalls([{ kind: 'shell', agentId: 'count' }, { kind: 'agent', agentId: 'a' }]), [{ name: 'read_bash', input: { shellId: 'count', delay: 5 } }]);
});
