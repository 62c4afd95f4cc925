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
