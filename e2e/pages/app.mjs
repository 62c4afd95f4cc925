// What every route shares: the header and its navigation, the connection
// indicator, empty states, and the `?debug` hooks (src/debug.rs).

/** Indicator texts while the backend cannot be reached. */
export const DISCONNECTED = /^(reconnecting in \d+ s|offline)$/;

/** A page of the app; the board and transcript page objects extend it. */
export class AppPage {
  constructor(page) {
    this.page = page;
    this.header = page.getByTestId('app-header');
    this.navBoard = page.getByTestId('nav-board');
    this.navView = page.getByTestId('nav-view');
    this.connection = page.getByTestId('connection-status');
    this.retry = page.getByTestId('connection-retry');
    this.main = page.locator('main');
  }

  /** Opens `url` (absolute, or a path of `server`). */
  async goto(url, server) {
    await this.page.goto(server ? new URL(url, server.url).href : url);
    return this;
  }

  /** The empty state showing `text`. */
  emptyState(text) {
    return this.page.getByTestId('empty-state').filter({ hasText: text });
  }

  /** Waits until the indicator reads `connected`. */
  async waitConnected(options = {}) {
    await this.connection.filter({ hasText: /^connected$/ }).waitFor({ timeout: 20000, ...options });
  }

  /** Waits until the indicator says the backend is gone. */
  async waitDisconnected(options = {}) {
    await this.connection.filter({ hasText: DISCONNECTED }).waitFor({ timeout: 15000, ...options });
  }

  /** `window.__taskview.frameIssues()` (page opened with `?debug`). */
  frameIssues() {
    return this.page.evaluate(() => window.__taskview.frameIssues());
  }

  /** `window.__taskview.opens()`: how many times the socket opened. */
  socketOpens() {
    return this.page.evaluate(() => window.__taskview.opens());
  }
}
