// Finding one's way through a fan-out (SPEC.md §8): the search box and the
// subagent roster of a transcript page, and the drill-down of a board chip.

/** The transcript's search box and its count. */
export class Search {
  constructor(page) {
    this.page = page;
    this.box = page.getByTestId('transcript-search');
    this.count = page.getByTestId('search-count');
    this.region = page.getByRole('search');
  }

  /** Types `query` and goes to the first match (Enter). */
  async find(query) {
    await this.box.fill(query);
    await this.box.press('Enter');
  }

  /** The element of the current match (`data-search-hit`). */
  current() {
    return this.page.locator('[data-search-hit="true"]');
  }
}

/** The subagent roster and its toggle. */
export class Roster {
  constructor(page) {
    this.page = page;
    this.toggle = page.getByTestId('roster-toggle');
    this.panel = page.getByTestId('subagent-roster');
    this.items = page.getByTestId('roster-item');
    this.sort = page.getByTestId('roster-sort');
  }

  /** The filter button `all`, `running` or `failed`. */
  filter(name) {
    return this.panel.locator(`button[data-filter="${name}"]`);
  }

  /** The row of subagent `id`. */
  item(id) {
    return this.page.locator(`[data-testid="roster-item"][data-id="${id}"]`);
  }

  /** `[[id, depth]]` of the listed subagents, in order. */
  async listed() {
    return this.items.evaluateAll((items) => items.map((i) => [i.dataset.id, Number(i.dataset.depth)]));
  }

  /** Opens the roster unless it is shown. */
  async open() {
    if (!(await this.panel.isVisible())) await this.toggle.click();
    await this.panel.waitFor();
  }
}

/** A board chip's drill-down (the chip is a `TaskCard`'s `subagentChip`). */
export class ChipPopover {
  constructor(page) {
    this.page = page;
    this.root = page.getByTestId('board-chip-popover');
    this.items = page.getByTestId('popover-item');
  }

  /** The running subagents listed, as `[data-id]`s. */
  ids() {
    return this.items.evaluateAll((items) => items.map((i) => i.dataset.id));
  }
}

/**
 * The subagent rows of `rowSummary()` (`?debug`) as `[id, depth]`: what the
 * store holds, to compare the roster with.
 */
export function subagentRows(summary) {
  return summary
    .map((line) => /^( *)(\S+) subagent:/.exec(line))
    .filter(Boolean)
    .map(([, indent, id]) => [id, indent.length / 2]);
}
