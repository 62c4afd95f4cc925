// The board (docs/behaviour.md §5): columns with counts, and task cards with their
// subagent chip.
import { AppPage } from './app.mjs';

/** One task's card on the board. */
export class TaskCard {
  constructor(root) {
    this.root = root;
    this.link = root.locator('a');
    this.title = root.getByTestId('task-title');
    this.subagentChip = root.getByTestId('task-subagent-count');
  }
}

/** `/`, `/board/:id` and their `/embed` forms. */
export class BoardPage extends AppPage {
  constructor(page) {
    super(page);
    this.board = page.getByTestId('board');
    this.name = page.getByTestId('board-name');
    this.columns = page.getByTestId('board-column');
    this.columnNames = page.getByTestId('column-name');
    this.columnCounts = page.getByTestId('column-count');
    this.taskTitles = page.getByTestId('task-title');
  }

  /** Opens the board at `path` of `server` (default `/`). */
  static async open(page, server, path = '') {
    return new BoardPage(page).goto(path, server);
  }

  /** The card of task `taskId`. */
  card(taskId) {
    return new TaskCard(this.page.locator(`[data-testid=task-card][data-task-id="${taskId}"]`));
  }
}

/**
 * One card's state as a line, `title :: chip` (text|aria-label|title|svg),
 * read in the page; for `recordStates`.
 */
export function taskCardState(taskId) {
  const card = document.querySelector(`[data-testid=task-card][data-task-id="${taskId}"]`);
  if (!card) return 'no card';
  const title = card.querySelector('[data-testid=task-title]')?.textContent ?? '';
  const chip = card.querySelector('[data-testid=task-subagent-count]');
  const chipText = chip
    ? `${chip.textContent}|${chip.getAttribute('aria-label')}|${chip.getAttribute('title')}|svg:${chip.querySelector('svg[aria-hidden=true]') ? 1 : 0}`
    : 'no chip';
  return `${title} :: ${chipText}`;
}

/**
 * The columns of a board taskview makes (docs/board.md): the strip, the
 * filters, the Activity strip, each column's name, count and cards.
 */
export class StateBoardPage extends BoardPage {
  constructor(page) {
    super(page);
    this.strip = page.getByTestId('board-strip');
    this.needsYou = page.getByTestId('strip-needs-you');
    this.working = page.getByTestId('strip-working');
    this.activity = page.getByTestId('activity');
    this.activitySummary = page.getByTestId('activity-summary');
    this.shown = page.getByTestId('filter-shown');
    this.text = page.getByTestId('filter-text');
  }

  /** Opens the board at `path` of `server`. */
  static async open(page, server, path = 'board/wf-recordings') {
    return new StateBoardPage(page).goto(path, server);
  }

  /** Column `slug` (`needs-you`, `working`, `stopped`, `done`). */
  column(slug) {
    const root = this.page.locator(`[data-testid=board-column][data-column="${slug}"]`);
    return {
      root,
      name: root.getByTestId('column-name'),
      count: root.getByTestId('column-count'),
      scroller: root.locator('.state-column-scroll'),
      cards: root.getByTestId('task-card'),
    };
  }

  /** The select of filter `key` (`agent`, `project`, `machine`, `person`, `state`). */
  filter(key) {
    return this.page.getByTestId(`filter-${key}`);
  }

  /** The card of task `taskId` with its words. */
  card(taskId) {
    const card = super.card(taskId);
    for (const part of ['status', 'agent', 'project', 'who', 'age', 'subagents', 'tokens', 'cost']) {
      card[part] = card.root.getByTestId(`card-${part}`);
    }
    return card;
  }

  /** Every column's `[slug, count, [titles of the cards in the page]]`. */
  async columnsNow() {
    return this.page.evaluate(() => [...document.querySelectorAll('[data-testid=board-column]')].map((c) => [
      c.dataset.column,
      Number(c.querySelector('[data-testid=column-count]').textContent),
      [...c.querySelectorAll('[data-testid=task-title]')].map((t) => t.textContent),
    ]));
  }
}

/**
 * Records in the page every distinct `{state, count}` of the board's first
 * task card, whatever the board's kind: a kandev card's state words and
 * chip, or a board taskview makes's column (`working`, `done`, …) and its
 * subagents running. `window.__board` holds them, in order.
 */
export async function recordFirstCard(page) {
  await page.evaluate(() => {
    const read = () => {
      const card = document.querySelector('[data-testid=task-card]');
      if (!card) return { state: null, count: 0 };
      if (card.dataset.column) {
        const running = card.querySelector('[data-testid=card-subagents]')?.dataset.running;
        return { state: card.dataset.column, count: Number(running ?? 0) };
      }
      const chip = card.querySelector('[data-testid=task-subagent-count]');
      return {
        state: card.querySelector('[data-testid=task-state]')?.textContent ?? '',
        count: chip ? Number(chip.textContent.trim()) : 0,
      };
    };
    const record = () => {
      const now = read();
      const last = window.__board.at(-1);
      if (!last || last.state !== now.state || last.count !== now.count) window.__board.push({ t: Date.now(), ...now });
    };
    window.__board = [];
    record();
    new MutationObserver(record).observe(document.body, { subtree: true, childList: true, characterData: true, attributes: true });
  });
}
