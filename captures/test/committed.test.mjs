// The committed captures (tests/fixtures/captures/) are whole: each CLI
// version's index agrees with its scenario folders, no capture is incomplete,
// every file a manifest lists is there with its size, and the runs were
// isolated with nothing refused on the way out.
import assert from 'node:assert/strict';
import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { CLIS } from '../lib/clis/index.mjs';
import { pinOf } from '../lib/install.mjs';
import { SCENARIOS } from '../scenarios/index.mjs';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'tests', 'fixtures', 'captures');
const json = (path) => JSON.parse(readFileSync(path, 'utf8'));

for (const cli of CLIS) {
  const { version } = pinOf(cli.name);
  const dir = join(ROOT, `${cli.name}-${version}`);
  test(`${cli.name} ${version}: every scenario is captured or said to be unsupported, and its files are all there`, { skip: !existsSync(dir) && 'not captured yet' }, () => {
    const index = json(join(dir, 'manifest.json'));
    assert.deepEqual(Object.keys(index.scenarios).sort(), SCENARIOS.map((s) => s.name).sort());
    assert.equal(index.isolation, 'netns');
    for (const [name, entry] of Object.entries(index.scenarios)) {
      assert.notEqual(entry.status, 'incomplete', `${name}: ${entry.problems?.join('; ')}`);
      if (entry.status === 'unsupported') {
        assert.ok(!existsSync(join(dir, name)), `${name}: unsupported, yet a folder`);
        continue;
      }
      const manifest = json(join(dir, name, 'manifest.json'));
      assert.deepEqual(manifest.problems, [], name);
      assert.deepEqual(manifest.isolation.egressAttempts, [], `${name}: egress`);
      assert.equal(manifest.server.unmatched, 0, `${name}: unmatched requests`);
      assert.equal(manifest.holds.subagents, entry.subagents, name);
      for (const { path, bytes } of manifest.files) {
        const file = join(dir, name, path);
        assert.ok(existsSync(file), `${name}: ${path} is missing`);
        assert.equal(statSync(file).size, bytes, `${name}: ${path} size`);
      }
    }
    const folders = readdirSync(dir, { withFileTypes: true }).filter((e) => e.isDirectory()).map((e) => e.name);
    assert.deepEqual(folders.sort(), Object.keys(index.scenarios).filter((n) => index.scenarios[n].status !== 'unsupported').sort());
  });
}
