// A real PostgreSQL for the team store's end-to-end tests (Debian's
// `postgresql`, installed by scripts/setup.sh), as server/tests/common/postgres.rs
// starts one: `initdb` in a temporary folder and `pg_ctl` on a free port,
// as the `postgres` user when this runs as root (both refuse root).
import { execFileSync } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { freePort } from './server.mjs';

const ROOT_USER = process.getuid?.() === 0;

/** Debian's newest PostgreSQL programs (not on PATH). */
function binDir() {
  const base = '/usr/lib/postgresql';
  const versions = existsSync(base) ? readdirSync(base).filter((v) => /^\d+$/.test(v)).map(Number) : [];
  if (versions.length === 0) throw new Error('no PostgreSQL: bash scripts/setup.sh installs it');
  return path.join(base, String(Math.max(...versions)), 'bin');
}

/** Runs one of the cluster's programs, as `postgres` when this is root. */
function run(program, args) {
  const bin = path.join(binDir(), program);
  const [cmd, all] = ROOT_USER ? ['runuser', ['-u', 'postgres', '--', bin, ...args]] : [bin, args];
  return execFileSync(cmd, all, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
}

/** A running cluster in a temporary folder; `stop()` and `start()` it, `remove()` it at the end. */
export class Postgres {
  static async start() {
    const dir = mkdtempSync(path.join(tmpdir(), 'taskview-e2e-pg-'));
    if (ROOT_USER) {
      const uid = Number(execFileSync('id', ['-u', 'postgres'], { encoding: 'utf8' }).trim());
      const gid = Number(execFileSync('id', ['-g', 'postgres'], { encoding: 'utf8' }).trim());
      chownSync(dir, uid, gid);
    }
    run('initdb', ['-U', 'postgres', '--auth=trust', '-E', 'UTF8', '--no-sync', '-D', path.join(dir, 'data')]);
    const cluster = new Postgres(dir, await freePort());
    cluster.start();
    return cluster;
  }

  constructor(dir, port) {
    this.dir = dir;
    this.port = port;
    this.databases = 0;
  }

  start() {
    const options = `-p ${this.port} -k ${this.dir} -c listen_addresses=127.0.0.1 -c fsync=off`;
    run('pg_ctl', ['-D', path.join(this.dir, 'data'), '-l', path.join(this.dir, 'log'), '-o', options, '-w', 'start']);
  }

  stop() {
    run('pg_ctl', ['-D', path.join(this.dir, 'data'), '-m', 'immediate', '-w', 'stop']);
  }

  /** A new empty database; its URL. */
  database() {
    const name = `e${this.databases++}`;
    run('psql', ['-h', '127.0.0.1', '-p', String(this.port), '-U', 'postgres', '-c', `CREATE DATABASE ${name}`]);
    return `postgres://postgres:e2e-password@127.0.0.1:${this.port}/${name}`;
  }

  remove() {
    try { this.stop(); } catch { /* already stopped */ }
    rmSync(this.dir, { recursive: true, force: true });
  }
}
