// A CLI's process, started with its output collected and a time limit: the
// one way every run of the harness starts a CLI.
import { spawn } from 'node:child_process';

/**
 * Starts `bin args` in `cwd` with `env`, stdout and stderr collected (`stdin`:
 * 'pipe' for a CLI driven over stdio, else 'ignore'), killed (SIGKILL) after
 * `timeoutMs`. Returns `{ child, output, exited, finish }`: `output.stdout` and
 * `output.stderr` so far; `exited` resolves to `[code, signal]` (`[127, null]`
 * when it could not start, said in `output.stderr`); `finish(graceMs)` gives it
 * `graceMs` to exit before SIGTERM (none: waits) and resolves to `exited`'s value.
 */
export function launch(bin, args, { cwd, env, timeoutMs, stdin = 'ignore' }) {
  const child = spawn(bin, args, { cwd, env, stdio: [stdin, 'pipe', 'pipe'] });
  const output = { stdout: '', stderr: '' };
  child.stdout.on('data', (c) => (output.stdout += c));
  child.stderr.on('data', (c) => (output.stderr += c));
  const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
  const exited = new Promise((resolve) => {
    child.on('exit', (code, signal) => resolve([code, signal]));
    child.on('error', (err) => {
      output.stderr += `\ncould not start ${bin}: ${err.message}`;
      resolve([127, null]);
    });
  }).finally(() => clearTimeout(timer));
  const finish = async (graceMs = null) => {
    const grace = graceMs == null ? null : setTimeout(() => child.kill('SIGTERM'), graceMs);
    try {
      return await exited;
    } finally {
      clearTimeout(grace);
    }
  };
  return { child, output, exited, finish };
}
