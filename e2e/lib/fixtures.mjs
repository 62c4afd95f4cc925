// The fixtures every spec uses: `import { test, expect } from '../lib/fixtures.mjs'`.
//
// - `app` (per worker): a `taskview serve` with the demo scenario, for tests
//   that only need the app and files;
// - `serve(flags, {port})`: a server of the test's own (a scenario, faults,
//   recordings), stopped when the test ends;
// - `serveFile(source)`: puts a file in the served folder for `/view?src=`,
//   removed when the test ends;
// - `openPage(contextOptions)`: another page in a context of its own (a
//   viewport, a second reader); `page` is Playwright's own;
// - `errors`: every page's uncaught errors and console errors. A test fails
//   when any of its pages logged one, unless the test allowed it for that
//   page with `errors.allow(page, /pattern/)`.
import { test as base, expect } from '@playwright/test';
import { ServedFolder } from './files.mjs';
import { startServer } from './server.mjs';

/** Uncaught errors and console errors of a test's pages. */
class PageErrors {
  constructor() {
    this.logs = new Map();
    this.checked = false;
  }

  /** Starts recording `page`'s errors. */
  watch(page) {
    const log = { errors: [], allowed: [] };
    this.logs.set(page, log);
    page.on('pageerror', (e) => log.errors.push(`pageerror: ${e.message}`));
    page.on('console', (m) => { if (m.type() === 'error') log.errors.push(`console: ${m.text()}`); });
  }

  /** Everything `page` logged so far, allowed or not. */
  of(page) {
    return this.logs.get(page)?.errors ?? [];
  }

  /** Errors of `page` matching `pattern` do not fail the test. */
  allow(page, pattern) {
    this.logs.get(page).allowed.push(pattern);
  }

  /** Errors not allowed, each prefixed with its page's URL. */
  unexpected() {
    return [...this.logs].flatMap(([page, log]) => log.errors
      .filter((e) => !log.allowed.some((p) => p.test(e)))
      .map((e) => `${page.isClosed() ? 'closed page' : page.url()}: ${e}`));
  }

  /**
   * Fails the test (once) when a page logged an error it did not allow. A
   * soft assertion: the test is marked failed before its pages close, so
   * their traces are kept.
   */
  check() {
    if (this.checked) return;
    this.checked = true;
    expect.soft(this.unexpected(), 'errors logged by the pages').toEqual([]);
  }
}

export const test = base.extend({
  app: [async ({}, use) => {
    const server = await startServer([]);
    await use(server);
    await server.stop();
  }, { scope: 'worker' }],

  serve: async ({}, use) => {
    const started = [];
    await use(async (flags = [], options = {}) => {
      const server = await startServer(flags, options);
      started.push(server);
      return server;
    });
    await Promise.all(started.map((s) => s.stop()));
  },

  serveFile: async ({}, use, testInfo) => {
    const folder = new ServedFolder(`${testInfo.workerIndex}-${testInfo.testId}`);
    await use((source) => folder.add(source));
    folder.remove();
  },

  errors: async ({}, use) => {
    await use(new PageErrors());
  },

  // Pages close before the test's servers stop (they depend on `serve`), and
  // errors are checked before pages close, so shutting down adds none.
  page: async ({ page, errors, serve }, use) => {
    void serve;
    errors.watch(page);
    await use(page);
    errors.check();
  },

  openPage: async ({ browser, errors, serve }, use) => {
    void serve;
    const contexts = [];
    await use(async (options = {}) => {
      const context = await browser.newContext(options);
      contexts.push(context);
      const page = await context.newPage();
      errors.watch(page);
      return page;
    });
    errors.check();
    await Promise.all(contexts.map((c) => c.close()));
  },
});

export { expect };
