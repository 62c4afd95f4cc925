// Network isolation: the runs (model server and CLIs) happen inside a fresh
// network namespace whose only interface is loopback, so no packet can leave
// 127.0.0.1 whatever a CLI tries. The harness re-executes itself there with
// `unshare --net` (needs root or CAP_SYS_ADMIN, and `ip` to bring `lo` up).
import { spawnSync } from 'node:child_process';
import { networkInterfaces } from 'node:os';

const MARK = 'TASKVIEW_CAPTURES_NETNS';

/** The interfaces this process can use, by name. */
const interfaces = () => Object.keys(networkInterfaces()).sort();

/** True inside the harness's own loopback-only namespace. */
export const insideNamespace = (env = process.env) => env[MARK] === '1';

/**
 * What guarantees isolation for this process: `{ mode: 'netns', interfaces }`
 * when only loopback exists, else `{ mode: 'env-only', interfaces }` (the
 * CLIs' own switches and the refusing proxy are then all that hold traffic in).
 */
export function isolation() {
  const names = interfaces();
  const loopbackOnly = names.every((n) => n === 'lo');
  return { mode: insideNamespace() && loopbackOnly ? 'netns' : 'env-only', interfaces: names };
}

/**
 * Runs `node <args>` again inside a new network namespace with loopback up and
 * returns its exit status, or null when a namespace cannot be made here (the
 * caller then warns loudly and runs without one).
 */
export function reexecIsolated(args) {
  const probe = spawnSync('unshare', ['--net', '--', 'ip', 'link', 'set', 'lo', 'up'], { encoding: 'utf8' });
  if (probe.status !== 0) return null;
  const script = 'ip link set lo up && exec "$0" "$@"';
  const run = spawnSync('unshare', ['--net', '--', 'sh', '-c', script, process.execPath, ...args], {
    stdio: 'inherit',
    env: { ...process.env, [MARK]: '1' },
  });
  return run.status ?? 1;
}

/** The loud notice printed when the runs are not isolated. */
export const NOT_ISOLATED = [
  '',
  '!! captures: NO NETWORK NAMESPACE (unshare --net failed: not root, or no `ip`).',
  '!! The CLIs run with their telemetry/update switches off and a refusing proxy,',
  '!! but nothing ENFORCES that their traffic stays on 127.0.0.1. The manifests say',
  '!! isolation.mode = "env-only". Run as root (or with CAP_SYS_ADMIN) to enforce it.',
  '',
].join('\n');
