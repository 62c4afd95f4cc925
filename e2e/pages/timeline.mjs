// The Timeline of every subagent run (docs/user-guide.md "The Timeline"): its
// toggle, its panel, its bars and rows, the table, and the `?debug` hook's view
// of it.

/** The timeline panel of a transcript page. */
export class Timeline {
  constructor(page) {
    this.page = page;
    this.toggle = page.getByTestId('timeline-toggle');
    this.panel = page.getByTestId('timeline');
    this.lanes = page.getByTestId('timeline-lane');
    this.bars = page.getByTestId('timeline-bar');
    this.clusters = page.getByTestId('timeline-cluster');
    this.lanesBox = page.getByTestId('timeline-lanes');
    this.minimap = page.getByTestId('timeline-minimap');
    this.window = page.getByTestId('timeline-window');
    this.summary = page.getByTestId('timeline-summary');
    this.focus = page.getByTestId('timeline-focus');
    this.peak = page.getByTestId('timeline-peak');
    this.table = page.getByTestId('timeline-table');
    this.tableToggle = page.getByTestId('timeline-table-toggle');
    this.pack = page.getByTestId('timeline-pack');
  }

  /** Opens the panel unless it is shown, and waits for its first bar. */
  async open() {
    if (!(await this.panel.isVisible())) await this.toggle.click();
    await this.bars.first().waitFor();
  }

  /** The bar of run `id`. */
  bar(id) {
    return this.page.locator(`[data-testid="timeline-bar"][data-id="${id}"]`);
  }

  /** `{runs: [{id, lane, depth, start_ms, end_ms, status, critical}], peak}` (`?debug`). */
  snapshot() {
    return this.page.evaluate(() => window.__taskview.timeline());
  }

  /** `[id, x, width]` of the bars drawn, in DOM order. */
  drawn() {
    return this.bars.evaluateAll((bars) => bars.map((b) => [b.dataset.id, b.offsetLeft, b.offsetWidth]));
  }
}
