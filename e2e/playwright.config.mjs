// The end-to-end suite: `npx playwright test` (or `make test`). Debian's
// Chromium, no retries, a trace kept for every failed test (test-results/).
import { defineConfig } from '@playwright/test';
import { LAUNCH_OPTIONS } from './lib/browser.mjs';

export default defineConfig({
  testDir: 'tests',
  testMatch: '*.spec.mjs',
  outputDir: 'test-results',
  fullyParallel: true,
  // The machine has 2 cores; most tests wait on servers, so 2 workers beat 1 (e2e/README.md).
  workers: Number(process.env.E2E_WORKERS ?? 2),
  retries: 0,
  forbidOnly: true,
  // Generous, for a loaded machine; tests that stream for minutes set their own.
  timeout: 120000,
  expect: { timeout: 20000 },
  globalTimeout: 20 * 60 * 1000,
  // `N passed, N failed` for scripts/test.sh; PLAYWRIGHT_REPORTER=list etc. to override.
  reporter: process.env.PLAYWRIGHT_REPORTER ?? [['./reporter.mjs']],
  use: {
    browserName: 'chromium',
    launchOptions: LAUNCH_OPTIONS,
    trace: 'retain-on-failure',
    actionTimeout: 20000,
    navigationTimeout: 30000,
  },
});
