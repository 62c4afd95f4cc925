// A transcript (docs/behaviour.md §2–§4, §7): `/task/:id`, `/view?src=` and their
// `/embed` forms. Rows are virtualized: `rowSummary()` (the `?debug` hook)
// reads the whole transcript without scrolling.
import { AppPage } from './app.mjs';
import { SubagentCard, readFace } from './card.mjs';
import { eventually } from '../lib/poll.mjs';

/** A transcript page. */
export class TranscriptPage extends AppPage {
  constructor(page) {
    super(page);
    this.scroller = page.getByTestId('transcript');
    this.rows = page.locator('.row-slot');
    this.title = page.getByTestId('task-title');
    this.dialect = page.getByTestId('dialect');
    this.fileView = page.getByTestId('file-view');
    this.fileInput = page.getByTestId('file-input');
    this.folderInput = page.getByTestId('folder-input');
    this.sourceName = page.locator('.source-name');
    this.loadError = page.getByTestId('load-error');
    this.loadStatus = page.getByTestId('load-status');
    this.subagentCards = page.getByTestId('subagent-card');
    this.orphanCards = page.getByTestId('orphan-card');
    this.subagentTypes = page.getByTestId('subagent-type');
    this.groups = page.getByTestId('turn-group');
    this.groupLabels = page.getByTestId('turn-group-label');
    this.jumpToLatest = page.getByTestId('jump-to-latest');
    this.progressBar = page.getByRole('progressbar');
    this.notShown = page.getByTestId('records-not-shown');
  }

  /**
   * `/view?src=<src>` of `server` (`hash` e.g. `#msg-m7`; `embed` for
   * `/embed/view`; `debug` for the `?debug` hooks).
   */
  static async openFile(page, server, src, { hash = '', embed = false, debug = false } = {}) {
    const view = embed ? 'embed/view' : 'view';
    const hooks = debug ? '&debug' : '';
    return new TranscriptPage(page).goto(`${view}?src=${encodeURIComponent(src)}${hooks}${hash}`, server);
  }

  /**
   * `/view?debug` (`embed` for `/embed/view`) with `messages` pushed by the
   * page's host (`append`): a live source, where a file opened is still and
   * its unsettled runs read interrupted (docs/behaviour.md §8).
   */
  static async openPushed(page, server, messages, { hash = '', embed = false } = {}) {
    const view = await new TranscriptPage(page).goto(`${embed ? 'embed/view' : 'view'}?debug${hash}`, server);
    await view.fileView.waitFor();
    // An append before the view listens is dropped; a repeat merges.
    await eventually(async () => {
      if ((await view.rowSummary()).length) return true;
      await view.append(messages);
      return false;
    }, 'the pushed messages in the transcript', { everyMs: 500 });
    return view;
  }

  /** `/task/<taskId>` with `#msg-<id>` and the `?debug` hooks (`embed` for `/embed/task`). */
  static async openTaskAt(page, server, taskId, id, { embed = false } = {}) {
    return new TranscriptPage(page).goto(`${embed ? 'embed/' : ''}task/${taskId}?debug#msg-${id}`, server);
  }

  /** `/task/<taskId>` of `server`, with the `?debug` hooks unless `debug: false`. */
  static async openTask(page, server, taskId, { debug = true } = {}) {
    return new TranscriptPage(page).goto(`task/${taskId}${debug ? '?debug' : ''}`, server);
  }

  /**
   * Makes the older pages of a session (`…/messages?before=`) answer `ms`
   * later, so a test can act while they land.
   */
  static slowOlderPages(page, ms) {
    return page.route(
      (url) => url.pathname.endsWith('/messages') && url.searchParams.has('before'),
      async (route) => { await new Promise((r) => setTimeout(r, ms)); await route.continue(); },
    );
  }

  /** The row of message `id` (`[id="msg-<id>"]`). */
  message(id) {
    return this.page.locator(`[id="msg-${id}"]`);
  }

  /** The subagent card whose tool call is message `id`. */
  card(id) {
    return new SubagentCard(this.message(id));
  }

  /** Faces (see `readFace`) of the top-level subagent cards, in order. */
  topLevelFaces() {
    const cards = '[data-testid="transcript"] .row-slot > [data-testid="subagent-card"]';
    return this.page.evaluate(`[...document.querySelectorAll('${cards}')].map(${readFace})`);
  }

  /**
   * Whether message `id`'s row has its top inside the visible part of the
   * list (false when it is not rendered).
   */
  inView(id) {
    return this.page.evaluate((id) => {
      const el = document.getElementById(`msg-${id}`);
      const list = document.querySelector('[data-testid=transcript]');
      if (!el || !list) return false;
      const top = el.getBoundingClientRect().top;
      const box = list.getBoundingClientRect();
      return top >= box.top - 1 && top < box.bottom - 8;
    }, id);
  }

  /** `window.__taskview.memory()` (`?debug`): `{wasmBytes, heldRows, entries}`. */
  memory() {
    return this.page.evaluate(() => window.__taskview?.memory() ?? { entries: 0 });
  }

  /** Waits until the store holds at least `count` entries (`?debug`). */
  async waitForEntries(count, options) {
    await eventually(async () => (await this.memory()).entries >= count, `${count} messages held`, options);
  }

  /** Pushes `messages` through the embed contract (`postMessage` to the page itself). */
  append(messages) {
    return this.page.evaluate((ms) => window.postMessage({ taskview: 'append', messages: ms }, '*'), messages);
  }

  /** The transcript as one line per row (`?debug`), or [] while it starts. */
  rowSummary() {
    return this.page.evaluate(() => window.__taskview?.rowSummary() ?? []).catch(() => []);
  }

  /** Waits until the summary has a row starting with `prefix`. */
  async waitForRow(prefix, options) {
    await eventually(async () => (await this.rowSummary()).some((r) => r.startsWith(prefix)), `a row ${prefix}`, options);
  }

  /**
   * Waits until `other` shows the same rows as this page and returns them;
   * fails with the first difference.
   */
  async sameRowsAs(other, what, { timeoutMs = 60000, everyMs = 500 } = {}) {
    let left = [];
    let right = [];
    try {
      await eventually(async () => {
        [left, right] = [await this.rowSummary(), await other.rowSummary()];
        return left.length > 0 && JSON.stringify(left) === JSON.stringify(right);
      }, what, { timeoutMs, everyMs });
    } catch {
      const at = left.findIndex((row, i) => row !== right[i]);
      throw new Error(`${what}: ${left.length} vs ${right.length} rows; first difference at ${at}: `
        + `${JSON.stringify(left[at])} vs ${JSON.stringify(right[at])}`);
    }
    return left;
  }
}
