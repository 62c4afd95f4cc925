// Finding one's way through a fan-out (docs/behaviour.md §8): the search box and the
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

/**
 * The subagent roster and its toggle. Its list is virtualized (docs/behaviour.md §10):
 * only the rows on screen are in the DOM, so `listed()` scrolls through it and
 * `reveal(id)` scrolls a row into it.
 */
export class Roster {
  constructor(page) {
    this.page = page;
    this.toggle = page.getByTestId('roster-toggle');
    this.panel = page.getByTestId('subagent-roster');
    this.list = page.getByTestId('roster-list');
    this.items = page.getByTestId('roster-item');
    this.sort = page.getByTestId('roster-sort');
  }

  /** The filter button `all`, `running` or `failed`. */
  filter(name) {
    return this.panel.locator(`button[data-filter="${name}"]`);
  }

  /** The row of subagent `id` (rendered only while it is on screen: see `reveal`). */
  item(id) {
    return this.page.locator(`[data-testid="roster-item"][data-id="${id}"]`);
  }

  /** Rows the list holds in all (`aria-setsize` of its rows; 0 when empty). */
  async count() {
    return this.list.evaluate((list) => Number(list.querySelector('li[aria-setsize]')?.getAttribute('aria-setsize') ?? 0));
  }

  /**
   * `[[id, depth]]` of every listed subagent, in order: the list scrolled a
   * screen at a time, each row read at its place (`aria-posinset`), then
   * scrolled back to the top.
   */
  async listed() {
    return this.list.evaluate(async (list) => {
      const frame = () => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)));
      const rows = new Map();
      for (let top = 0; ; top += list.clientHeight) {
        list.scrollTop = top;
        await frame();
        for (const li of list.querySelectorAll('li[aria-posinset]')) {
          rows.set(Number(li.getAttribute('aria-posinset')), [li.dataset.id, Number(li.dataset.depth)]);
        }
        if (list.scrollTop + list.clientHeight >= list.scrollHeight - 1) break;
      }
      list.scrollTop = 0;
      await frame();
      return [...rows.keys()].sort((a, b) => a - b).map((k) => rows.get(k));
    });
  }

  /** Scrolls the list until the row of subagent `id` is rendered; returns it. */
  async reveal(id) {
    const found = await this.list.evaluate(async (list, id) => {
      const frame = () => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)));
      for (let top = 0; ; top += list.clientHeight / 2) {
        list.scrollTop = top;
        await frame();
        if (list.querySelector(`li[data-id="${id}"]`)) return true;
        if (list.scrollTop + list.clientHeight >= list.scrollHeight - 1) return false;
      }
    }, id);
    if (!found) throw new Error(`subagent ${id} is not in the roster`);
    return this.item(id);
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
