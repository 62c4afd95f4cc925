// A node:test reporter that prints one line per test and ends with the line
// scripts/test.sh counts: `N passed, M failed` (skipped tests are listed, not
// counted).
export default async function* reporter(source) {
  let passed = 0;
  let failed = 0;
  for await (const event of source) {
    if (event.type !== 'test:pass' && event.type !== 'test:fail') continue;
    const { name, details, nesting } = event.data;
    if (details?.type === 'suite') continue;
    const label = `${'  '.repeat(nesting)}${name}`;
    if (event.data.skip !== undefined || event.data.todo !== undefined) {
      yield `skip - ${label}${typeof event.data.skip === 'string' ? ` (${event.data.skip})` : ''}\n`;
    } else if (event.type === 'test:pass') {
      passed++;
      yield `ok - ${label}\n`;
    } else {
      failed++;
      const err = details?.error?.cause ?? details?.error;
      yield `not ok - ${label}\n${String(err?.stack ?? err).replace(/^/gm, '    ')}\n`;
    }
  }
  yield `${passed} passed, ${failed} failed\n`;
}
