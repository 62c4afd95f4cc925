import { test } from 'node:test';
import assert from 'node:assert/strict';
import { launch } from '../lib/process.mjs';

const NODE = process.execPath;
const opts = { cwd: process.cwd(), env: process.env, timeoutMs: 10_000 };

test('launch: collects stdout and stderr and resolves to the exit code', async () => {
  const p = launch(NODE, ['-e', 'process.stdout.write("out"); process.stderr.write("err"); process.exit(3)'], opts);
  assert.deepEqual(await p.finish(), [3, null]);
  assert.equal(p.output.stdout, 'out');
  assert.equal(p.output.stderr, 'err');
});

test('launch: a binary that cannot start exits 127 and says why', async () => {
  const p = launch('/nonexistent/cli', [], opts);
  assert.deepEqual(await p.exited, [127, null]);
  assert.match(p.output.stderr, /could not start \/nonexistent\/cli/);
});

test('launch: a CLI past its time limit is killed', async () => {
  const p = launch(NODE, ['-e', 'setInterval(() => {}, 1000)'], { ...opts, timeoutMs: 200 });
  assert.deepEqual(await p.exited, [null, 'SIGKILL']);
});

test('launch: finish gives a CLI driven over stdio its grace, then SIGTERM', async () => {
  const p = launch(NODE, ['-e', 'process.stdin.on("data", (d) => process.stdout.write(d)); setInterval(() => {}, 1000)'], { ...opts, stdin: 'pipe' });
  p.child.stdin.write('hello');
  await new Promise((resolve) => p.child.stdout.once('data', resolve));
  assert.deepEqual(await p.finish(100), [null, 'SIGTERM']);
  assert.equal(p.output.stdout, 'hello');
});
