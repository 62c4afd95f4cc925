// Kimi Code's dialect: scenario actions as its tools, background agents named
// and settled as its results and notifications say.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { cli, dialect } from '../lib/clis/kimi-code.mjs';
import { agent, report, scenario, spawn, turn } from '../lib/dsl.mjs';

const s = scenario({
  name: 't',
  title: 't',
  story: 't',
  prompt: 'go',
  main: [turn(spawn('bg'), spawn('fg')), report('done')],
  agents: {
    bg: agent({ type: 'Plan', description: 'Plan it', prompt: 'plan', steps: [report('ok')] }),
    fg: agent({ type: 'general-purpose', description: 'Find it', prompt: 'find', background: false, steps: [report('ok')] }),
  },
});
const ctx = { cwd: '/w', scenario: s, agentIdOf: (key) => (key === 'bg' ? 'agent-0dos33e5' : null) };

test('kimi-code: Agent calls carry description, prompt, a built-in type and run_in_background', () => {
  const bg = dialect.call({ action: 'spawn', key: 'bg' }, ctx);
  assert.deepEqual(bg, { name: 'Agent', input: { description: 'Plan it', prompt: 'plan', subagent_type: 'plan', run_in_background: true } });
  const fg = dialect.call({ action: 'spawn', key: 'fg' }, ctx);
  assert.equal(fg.input.subagent_type, 'coder');
  assert.equal(fg.input.run_in_background, false);
  assert.deepEqual(dialect.call({ action: 'read', path: 'src/lib.rs' }, ctx), { name: 'Read', input: { path: '/w/src/lib.rs' } });
  assert.deepEqual(dialect.call({ action: 'stop', key: 'bg' }, ctx), { name: 'TaskStop', input: { task_id: 'agent-0dos33e5' } });
});

test('kimi-code: a background agent settles with its notification, or a TaskStop result that killed it', () => {
  const launch = 'task_id: agent-0dos33e5\nstatus: running\nagent_id: agent-3\nactual_subagent_type: plan\n';
  assert.equal(dialect.agentIdFromLaunch(launch), 'agent-0dos33e5');
  const said = (role, type, text) => ({ role, parts: [{ type, id: 'r', text, isError: false }] });
  assert.equal(dialect.settled({ launch, agentId: 'agent-0dos33e5', messages: [said('tool', 'result', launch)] }), false);
  const notification = '<notification id="task:agent-0dos33e5:completed" category="task" type="task.completed" source_kind="background_task" source_id="agent-0dos33e5" agent_id="agent-3">\nTitle: Background agent completed\n</notification>';
  assert.equal(dialect.settled({ launch, agentId: 'agent-0dos33e5', messages: [said('user', 'text', notification)] }), true);
  const stopped = 'Wall time: 1.552 seconds\ntask_id: agent-0dos33e5\nstatus: killed\nreason: Stopped by TaskStop';
  assert.equal(dialect.settled({ launch, agentId: 'agent-0dos33e5', messages: [said('tool', 'result', stopped)] }), true);
  assert.equal(dialect.settled({ launch: 'agent_id: agent-0\nstatus: completed\n', agentId: null, messages: [] }), true, 'a foreground run settles with its result');
});

test('kimi-code: the scripted server is its OpenAI provider in config.toml, telemetry off, the pin\'s Node first', () => {
  const home = mkdtempSync(join(tmpdir(), 'kimi-home-'));
  const written = cli.setup({ home, serverUrl: 'http://127.0.0.1:4321' });
  rmSync(home, { recursive: true, force: true });
  assert.match(written['~/.kimi-code/config.toml'], /\[providers\.mock\]\ntype = "openai"\nbase_url = "http:\/\/127\.0\.0\.1:<port>\/v1"/);
  const env = cli.env({ home });
  assert.equal(env.KIMI_DISABLE_TELEMETRY, '1');
  assert.match(env.PATH, /kimi-code@2\.1\.0\/node_modules\/\.bin:/);
  assert.deepEqual(cli.args({ prompt: 'go' }), ['--output-format', 'stream-json', '-p', 'go']);
});
