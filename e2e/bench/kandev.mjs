// kandev's production web client (../shared/anchors/kandev-web-dist.tgz), run
// beside taskview in the same benchmark run (docs/behaviour.md §10: a ratio against a
// peer is measured with the peer in the same run, on the same machine and data).
//
// The client is served by a small proxy on 127.0.0.1: its built files (with
// `index.html` for every other path, as a single-page app; compressed with
// brotli or gzip as the browser accepts, as taskview's are, so neither side's
// bytes or cold start are counted raw), and `/api/…` and
// `/ws` forwarded to the `taskview serve` the bench also points taskview's own
// page at. So both clients read the same session from the same server and
// receive the same WebSocket frames (kandev's client splits a frame on `\n`
// as taskview's does, docs/protocol.md §5.2).
//
// The anchor lives beside the repository, not in it (its licence is
// AGPL-3.0; it is only run, never linked or copied). Without it the bench
// says that it skipped the comparison.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { createServer, request } from 'node:http';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';
import { ROOT } from '../lib/files.mjs';

/** Where the anchor is expected: `../shared/anchors/` beside the checkout. */
export const ANCHOR = process.env.KANDEV_ANCHOR ?? path.join(ROOT, '..', 'shared', 'anchors', 'kandev-web-dist.tgz');

const TYPES = {
  '.html': 'text/html; charset=utf-8', '.js': 'text/javascript', '.css': 'text/css', '.json': 'application/json',
  '.svg': 'image/svg+xml', '.png': 'image/png', '.ico': 'image/x-icon', '.woff2': 'font/woff2', '.ttf': 'font/ttf',
  '.wasm': 'application/wasm', '.webmanifest': 'application/manifest+json', '.txt': 'text/plain',
};

/** Types a production server sends compressed. */
const COMPRESSIBLE = new Set(['.html', '.js', '.css', '.json', '.svg', '.wasm', '.webmanifest', '.txt', '.ttf']);

/** Every compressible file's brotli and gzip twins, made once per run (not timed). */
const TWINS = new Map();

/** Compresses every compressible file under `dir` (brotli at 11, gzip at 9), as a build would. */
function compressAll(dir, prefix = dir) {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const file = path.join(dir, entry.name);
    if (entry.isDirectory()) compressAll(file, prefix);
    else if (COMPRESSIBLE.has(path.extname(file)) && !TWINS.has(path.relative(prefix, file))) {
      const raw = readFileSync(file);
      TWINS.set(path.relative(prefix, file), {
        br: brotliCompressSync(raw, { params: { [constants.BROTLI_PARAM_QUALITY]: 11 } }),
        gzip: gzipSync(raw, { level: 9 }),
      });
    }
  }
}

/**
 * `file` of `dist` as a production server sends it to a browser that accepts
 * `accepted`: its brotli twin, else its gzip twin, else as it is.
 */
function encoded(dist, file, accepted) {
  const twins = TWINS.get(path.relative(dist, file));
  if (twins && /\bbr\b/.test(accepted)) return { body: twins.br, encoding: 'br' };
  if (twins && /\bgzip\b/.test(accepted)) return { body: twins.gzip, encoding: 'gzip' };
  return { body: readFileSync(file) };
}

/** Whether the anchor is there; prints why the comparison is skipped when not. */
export function kandevAvailable() {
  if (existsSync(ANCHOR)) return true;
  console.log(`== kandev's client: skipped the comparison (no ${ANCHOR}); every ratio below is taskview's own`);
  return false;
}

/** Unpacks the anchor into a temporary folder; returns its `dist/`. */
function unpack() {
  const dir = mkdtempSync(path.join(tmpdir(), 'kandev-web-'));
  execFileSync('tar', ['xzf', ANCHOR, '-C', dir]);
  return { dir, dist: path.join(dir, 'dist') };
}

/** A file of `dist` for `pathname`, else `index.html` (the client routes itself). */
function fileFor(dist, pathname) {
  const wanted = path.normalize(path.join(dist, decodeURIComponent(pathname)));
  if (wanted.startsWith(dist) && existsSync(wanted) && statSync(wanted).isFile()) return wanted;
  return path.join(dist, 'index.html');
}

/** Forwards an HTTP request to `upstream` (a URL) and pipes the answer back. */
function forward(upstream, req, res) {
  const target = new URL(upstream);
  const headers = { ...req.headers, host: target.host };
  delete headers.origin;
  const out = request({ host: target.hostname, port: target.port, method: req.method, path: req.url, headers }, (answer) => {
    res.writeHead(answer.statusCode ?? 502, answer.headers);
    answer.pipe(res);
  });
  out.on('error', () => { res.writeHead(502); res.end(); });
  req.pipe(out);
}

/** Forwards a WebSocket upgrade to `upstream` byte for byte. */
function forwardUpgrade(upstream, req, socket, head) {
  const target = new URL(upstream);
  const tunnel = connect(Number(target.port), target.hostname, () => {
    const lines = [`${req.method} ${req.url} HTTP/1.1`];
    for (let i = 0; i < req.rawHeaders.length; i += 2) {
      const [name, value] = [req.rawHeaders[i], req.rawHeaders[i + 1]];
      const lower = name.toLowerCase();
      if (lower === 'host') lines.push(`Host: ${target.host}`);
      else if (lower !== 'origin') lines.push(`${name}: ${value}`);
    }
    tunnel.write(`${lines.join('\r\n')}\r\n\r\n`);
    if (head?.length) tunnel.write(head);
    tunnel.pipe(socket);
    socket.pipe(tunnel);
  });
  const close = () => { tunnel.destroy(); socket.destroy(); };
  tunnel.on('error', close);
  socket.on('error', close);
}

/** kandev's client served on 127.0.0.1 against the taskview server at `upstream`. */
export class KandevClient {
  /** Starts the proxy; `upstream` is the taskview server's base URL. */
  static async start(upstream) {
    const { dir, dist } = unpack();
    compressAll(dist);
    const server = createServer((req, res) => {
      const { pathname } = new URL(req.url, 'http://proxy');
      if (pathname.startsWith('/api/')) return forward(upstream, req, res);
      const file = fileFor(dist, pathname);
      const { body, encoding } = encoded(dist, file, req.headers['accept-encoding'] ?? '');
      res.writeHead(200, {
        'content-type': TYPES[path.extname(file)] ?? 'application/octet-stream',
        // Hashed assets cached for good, as a production server would.
        'cache-control': file.includes(`${path.sep}assets${path.sep}`) ? 'public, max-age=31536000, immutable' : 'no-cache',
        vary: 'accept-encoding',
        ...(encoding ? { 'content-encoding': encoding } : {}),
      });
      res.end(body);
    });
    server.on('upgrade', (req, socket, head) => forwardUpgrade(upstream, req, socket, head));
    await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
    return new KandevClient(server, dir);
  }

  constructor(server, dir) {
    this.server = server;
    this.dir = dir;
    this.url = `http://127.0.0.1:${server.address().port}/`;
  }

  /** The client's page of a task. */
  taskUrl(taskId) {
    return `${this.url}t/${encodeURIComponent(taskId)}`;
  }

  /** Skips the client's onboarding for pages of `context` (before their scripts run). */
  static async prepare(context) {
    await context.addInitScript(() => localStorage.setItem('kandev.onboarding.completed', 'true'));
  }

  async stop() {
    this.server.closeAllConnections?.();
    await new Promise((resolve) => this.server.close(resolve));
    rmSync(this.dir, { recursive: true, force: true });
  }
}
