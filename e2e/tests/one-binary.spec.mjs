// One binary (README.md "Install"): the release build compiles the final dist/ (split and
// precompressed) into target/release/taskview, so that binary alone, copied
// into an empty folder and started there without --dist, serves the app; and
// every style, script and wasm goes out compressed as the client accepts.
import { chmodSync, copyFileSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { test, expect } from '../lib/fixtures.mjs';
import { ROOT } from '../lib/files.mjs';
import { SERVER_BIN } from '../lib/server.mjs';
import { BoardPage } from '../pages/board.mjs';

/** The release binary copied alone into a new empty folder. */
function lonelyBinary() {
  const dir = mkdtempSync(path.join(tmpdir(), 'taskview-one-binary-'));
  const bin = path.join(dir, 'taskview');
  copyFileSync(SERVER_BIN, bin);
  chmodSync(bin, 0o755);
  return { dir, bin };
}

/** `GET url` with exactly this `Accept-Encoding` (none when null), undecoded. */
function rawGet(url, acceptEncoding) {
  return new Promise((resolve, reject) => {
    const headers = acceptEncoding === null ? {} : { 'accept-encoding': acceptEncoding };
    request(url, { headers }, (res) => {
      const chunks = [];
      res.on('data', (c) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode, headers: res.headers, body: Buffer.concat(chunks) }));
    }).on('error', reject).end();
  });
}

/** Every `.css`, `.js` and `.wasm` of the built app, by URL path. */
function appAssets(dir = path.join(ROOT, 'dist'), prefix = '') {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    if (entry.isDirectory()) {
      return entry.name === 'e2e' || entry.name.startsWith('.') ? [] : appAssets(path.join(dir, entry.name), `${prefix}${entry.name}/`);
    }
    return /\.(css|js|wasm)$/.test(entry.name) ? [`${prefix}${entry.name}`] : [];
  });
}

test('the release binary copied into an empty folder serves the app from itself', async ({ page, serve }) => {
  const { dir, bin } = lonelyBinary();
  try {
    const server = await serve(['--scenario', 'lifecycle', '--once', '--start-delay-ms', '600000'], { bin, cwd: dir, dist: null });
    const loaded = [];
    page.on('response', (r) => { if (/\.(css|js|wasm)$/.test(new URL(r.url()).pathname)) loaded.push(r); });
    const board = await BoardPage.open(page, server);
    await board.card('task-7c1e').root.waitFor();
    expect(await board.columnNames.allTextContents()).toEqual(['Todo', 'In Progress', 'Review']);
    expect(readdirSync(dir), 'nothing but the binary in its folder').toEqual(['taskview']);
    // What the browser fetched came compressed, as it accepts.
    expect(loaded.length, 'styles, scripts and wasm loaded').toBeGreaterThan(8);
    for (const response of loaded) {
      const headers = await response.allHeaders();
      expect(headers['content-encoding'], new URL(response.url()).pathname).toMatch(/^(br|gzip)$/);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('every style, script and wasm of the built-in app goes out as brotli, gzip or as it is, as accepted', async ({ serve }) => {
  const { dir, bin } = lonelyBinary();
  try {
    const server = await serve([], { bin, cwd: dir, dist: null });
    const assets = appAssets();
    expect(assets.filter((a) => a.endsWith('.css')).length, 'the styles').toBeGreaterThanOrEqual(6);
    expect(assets.filter((a) => a.startsWith('app-')).length, 'the split app').toBeGreaterThanOrEqual(3);
    for (const asset of assets) {
      const original = readFileSync(path.join(ROOT, 'dist', asset));
      const url = `${server.url}${asset}`;
      const br = await rawGet(url, 'gzip, deflate, br, zstd');
      expect([br.status, br.headers['content-encoding']], asset).toEqual([200, 'br']);
      expect(brotliDecompressSync(br.body).equals(original), `${asset}: brotli decodes to the file`).toBe(true);
      // A twin is kept only when smaller than the file (a tiny module's gzip may not be).
      const gzipped = existsSync(path.join(ROOT, 'dist', `${asset}.gz`));
      if (original.length > 1024) expect(gzipped, `${asset}: a gzip twin`).toBe(true);
      const gzip = await rawGet(url, 'gzip, deflate');
      expect(gzip.headers['content-encoding'], asset).toBe(gzipped ? 'gzip' : undefined);
      const unzipped = gzipped ? gunzipSync(gzip.body) : gzip.body;
      expect(unzipped.equals(original), `${asset}: gzip decodes to the file`).toBe(true);
      for (const accept of ['identity', null]) {
        const plain = await rawGet(url, accept);
        expect(plain.headers['content-encoding'], `${asset} with ${accept}`).toBeUndefined();
        expect(plain.body.equals(original), `${asset}: sent as it is`).toBe(true);
      }
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
