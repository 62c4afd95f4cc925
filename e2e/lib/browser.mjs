// How every e2e run launches Chromium: Debian's /usr/bin/chromium (Playwright
// downloads no browser), headless, with the quiet-network flags of
// docs/toolchain.md. Shared by playwright.config.mjs and bench.mjs.

/** `chromium.launch()` options. */
export const LAUNCH_OPTIONS = {
  executablePath: '/usr/bin/chromium',
  headless: true,
  args: ['--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking',
    '--disable-component-update', '--disable-sync'],
};
