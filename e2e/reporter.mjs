// Prints one line per test (`ok - ` / `not ok - `, with the error and the trace
// of a failure) and ends with `N passed, N failed`, the line scripts/test.sh
// counts. Errors outside any test (a worker that could not start) count as failed.
import path from 'node:path';

/** `file: describe › title`, the file without `.spec.mjs`. */
const name = (test) => {
  const [file, ...titles] = test.titlePath().filter(Boolean);
  return `${file.replace(/\.spec\.mjs$/, '')}: ${titles.join(' › ')}`;
};
const plain = (text) => text.replace(/\u001b\[[0-9;]*m/g, '');
const indent = (text) => plain(text).split('\n').map((l) => `    ${l}`).join('\n');

export default class CountingReporter {
  constructor() {
    this.passed = 0;
    this.failed = 0;
    this.skipped = 0;
  }

  printsToStdio() { return true; }

  onBegin(config, suite) {
    console.log(`running ${suite.allTests().length} tests with ${config.workers} worker(s)`);
  }

  onTestEnd(test, result) {
    const seconds = (result.duration / 1000).toFixed(1);
    const outcome = test.outcome();
    if (outcome === 'skipped') {
      this.skipped += 1;
      console.log(`skip - ${name(test)}`);
    } else if (outcome === 'expected') {
      this.passed += 1;
      console.log(`ok - ${name(test)} (${seconds}s)`);
    } else {
      this.failed += 1;
      console.log(`not ok - ${name(test)} (${seconds}s, ${result.status})`);
      for (const error of result.errors) console.log(indent(error.stack ?? error.message ?? String(error)));
      for (const a of result.attachments.filter((x) => x.path)) {
        const where = path.relative(process.cwd(), a.path);
        console.log(`    ${a.name}: ${where}${a.name === 'trace' ? ` (npx playwright show-trace ${where})` : ''}`);
      }
    }
  }

  onError(error) {
    this.failed += 1;
    console.log(`not ok - outside any test\n${indent(error.stack ?? error.message ?? String(error))}`);
  }

  onEnd(result) {
    if (result.status !== 'passed' && this.failed === 0) this.failed = 1; // interrupted or timed out
    const skipped = this.skipped ? ` (${this.skipped} skipped)` : '';
    console.log(`${this.passed} passed, ${this.failed} failed${skipped}`);
  }
}
