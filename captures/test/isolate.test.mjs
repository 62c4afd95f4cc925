import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { test } from 'node:test';
import { NOT_ISOLATED } from '../lib/isolate.mjs';

const PROBE = "import('./lib/isolate.mjs').then((m) => process.stdout.write(JSON.stringify(m.isolation())))";
const probe = (wrap = [], env = {}) => {
  const [cmd, ...args] = [...wrap, process.execPath, '-e', PROBE];
  const run = spawnSync(cmd, args, { cwd: new URL('..', import.meta.url), env: { ...process.env, ...env }, encoding: 'utf8' });
  return run.status === 0 ? JSON.parse(run.stdout) : null;
};
const canUnshare = spawnSync('unshare', ['--net', '--', 'ip', 'link', 'set', 'lo', 'up']).status === 0;

test('a process that only claims the namespace (the mark, but other interfaces) is "env-only"', () => {
  const claimed = probe([], { TASKVIEW_CAPTURES_NETNS: '1' });
  if (claimed.interfaces.some((n) => n !== 'lo')) assert.equal(claimed.mode, 'env-only');
  assert.equal(probe([], { TASKVIEW_CAPTURES_NETNS: '' }).mode, 'env-only');
});

test('inside `unshare --net` with loopback up, only "lo" is seen and the mode is "netns"', { skip: !canUnshare && 'unshare --net needs root' }, () => {
  const inside = probe(['unshare', '--net', '--', 'sh', '-c', 'ip link set lo up && exec "$0" "$@"'], { TASKVIEW_CAPTURES_NETNS: '1' });
  assert.deepEqual(inside, { mode: 'netns', interfaces: ['lo'] });
});

test('running without a namespace is said loudly, with what still holds traffic in and how to enforce it', () => {
  assert.match(NOT_ISOLATED, /NO NETWORK NAMESPACE/);
  assert.match(NOT_ISOLATED, /env-only/);
  assert.match(NOT_ISOLATED, /root/);
});
