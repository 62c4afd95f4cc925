// The pinned CLIs, installed with npm into a cache outside the repository,
// only when missing. Each CLI's exact version and its whole dependency tree are
// pinned by the committed `pins/<cli>/package.json` and `package-lock.json`;
// the install is `npm install` of those two files, which takes every locked
// version from the lockfile (`npm ci` refuses some CLIs' lockfiles: it wants
// entries for optional platform packages that npm itself does not write).
import { execFileSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const PINS = join(dirname(fileURLToPath(import.meta.url)), '..', 'pins');

/** `$TASKVIEW_CAPTURES_CACHE`, else `${XDG_CACHE_HOME:-$HOME/.cache}/taskview-captures`. */
function cacheRoot(env = process.env) {
  if (env.TASKVIEW_CAPTURES_CACHE) return env.TASKVIEW_CAPTURES_CACHE;
  return join(env.XDG_CACHE_HOME || join(env.HOME || homedir(), '.cache'), 'taskview-captures');
}

/** The pinned package and version of a CLI, from `pins/<cli>/package.json`. */
export function pinOf(cli) {
  const manifest = JSON.parse(readFileSync(join(PINS, cli, 'package.json'), 'utf8'));
  const [pkg, version] = Object.entries(manifest.dependencies)[0];
  return { pkg, version };
}

/** Where a CLI's pinned install lives in the cache. */
export function installDir(cli, env = process.env) {
  const { version } = pinOf(cli);
  return join(cacheRoot(env), `${cli}@${version}`);
}

/**
 * Installs the pinned CLI unless its cache folder already holds it; returns
 * the folder. npm runs outside any network namespace (it needs the
 * registry); nothing else the harness runs does.
 */
export function ensureInstalled(cli, { log = console.error } = {}) {
  const dir = installDir(cli);
  const stamp = join(dir, '.taskview-installed');
  const lock = readFileSync(join(PINS, cli, 'package-lock.json'), 'utf8');
  if (existsSync(stamp) && readFileSync(stamp, 'utf8') === lock) return dir;
  const { pkg, version } = pinOf(cli);
  log(`captures: installing ${pkg}@${version} into ${dir}`);
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  for (const f of ['package.json', 'package-lock.json']) copyFileSync(join(PINS, cli, f), join(dir, f));
  execFileSync('npm', ['install', '--no-audit', '--no-fund', '--loglevel=error'], { cwd: dir, stdio: ['ignore', 'inherit', 'inherit'] });
  writeFileSync(stamp, lock);
  return dir;
}

/** The path of an installed CLI's executable. */
export const binOf = (cli, bin) => join(installDir(cli), 'node_modules', '.bin', bin);
