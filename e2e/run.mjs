// Runs every `tests/*.spec.mjs` (or the ones named on the command line) and
// prints `N passed, N failed`. Each spec exports `default async (suite) => {}`.
import { readdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Suite } from './harness.mjs';

const dir = path.join(path.dirname(fileURLToPath(import.meta.url)), 'tests');
const wanted = process.argv.slice(2);
const specs = readdirSync(dir).filter((f) => f.endsWith('.spec.mjs'))
  .filter((f) => !wanted.length || wanted.some((w) => f.includes(w))).sort();
const counters = { passed: 0, failed: 0 };
for (const file of specs) {
  const suite = new Suite(file.replace('.spec.mjs', ''), counters);
  try {
    const spec = await import(pathToFileURL(path.join(dir, file)));
    await spec.default(suite);
  } catch (e) {
    counters.failed++;
    console.log(`not ok - ${suite.name}: setup failed\n  ${String(e?.stack ?? e).split('\n').slice(0, 4).join('\n  ')}`);
  } finally {
    await suite.close();
  }
}
console.log(`${counters.passed} passed, ${counters.failed} failed`);
process.exit(counters.failed ? 1 : 0);
