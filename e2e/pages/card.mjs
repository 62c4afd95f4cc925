// A subagent card in a transcript (docs/behaviour.md §3): its face while collapsed, and
// its children, full result and prompt once expanded.
import { expect } from '@playwright/test';

/**
 * Reads a card's face in the page (passed to `evaluate`, so self-contained):
 * `{id, face: {type, description, descriptionTitle, status, childCount,
 * summary, chips: [[id, text]], notLoaded}, chipTitles, summaryTitle, expandable}`.
 */
export function readFace(card) {
  const text = (sel) => card.querySelector(sel)?.textContent ?? null;
  const head = ':scope > .card-head > ';
  const chips = [...card.querySelectorAll(':scope > [data-testid="subagent-meta"] > .chip')];
  const chipId = (c) => c.dataset.testid.replace('subagent-meta-', '');
  return {
    id: card.id.replace(/^msg-/, ''),
    face: {
      type: text(`${head}[data-testid="subagent-type"]`),
      description: text(`${head}[data-testid="subagent-description"]`),
      descriptionTitle: card.querySelector(`${head}[data-testid="subagent-description"]`)?.getAttribute('title') ?? null,
      status: text(`${head}[data-testid="subagent-status"]`),
      childCount: text(`${head}[data-testid="subagent-child-count"]`),
      summary: text(':scope > [data-testid="subagent-result-summary"]'),
      chips: chips.map((c) => [chipId(c), c.textContent]),
      notLoaded: card.querySelector(':scope > [data-testid="subagent-not-loaded"]') !== null,
    },
    chipTitles: Object.fromEntries(chips.map((c) => [chipId(c), c.getAttribute('title')])),
    summaryTitle: card.querySelector(':scope > [data-testid="subagent-result-summary"]')?.getAttribute('title') ?? null,
    expandable: card.querySelector(':scope > button.card-head') !== null,
  };
}

/** One subagent card, found by its root (`[id="msg-<tool call id>"]`). */
export class SubagentCard {
  constructor(root) {
    this.root = root;
    this.head = root.locator(':scope > button.card-head');
    this.type = root.locator(':scope > .card-head > [data-testid="subagent-type"]');
    this.description = root.locator(':scope > .card-head > [data-testid="subagent-description"]');
    this.model = root.locator(':scope > [data-testid="subagent-meta"] > [data-testid="subagent-meta-model"]');
    this.summary = root.locator(':scope > [data-testid="subagent-result-summary"]');
    this.body = root.locator(':scope > .card-body');
    this.children = this.body.locator(':scope > .card-children');
    this.resultText = this.body.locator(':scope > [data-testid="subagent-result-text"]');
    this.prompt = this.body.locator(':scope > [data-testid="subagent-prompt"]');
  }

  /** The face, as `readFace` reads it. */
  face() {
    return this.root.evaluate(readFace);
  }

  /** Clicks the head and waits until the card says it is open. */
  async expand() {
    await this.head.click();
    await expect(this.head).toHaveAttribute('aria-expanded', 'true');
  }

  /** The direct child rows as `[data-testid, message id]`. */
  childRows() {
    return this.children.locator(':scope > [data-testid]').evaluateAll(
      (rows) => rows.map((r) => [r.dataset.testid, r.id.replace(/^msg-/, '')]));
  }

  /** Message ids of every row inside the children, in order (nested ones too). */
  childIds() {
    return this.children.locator('[id^=msg-]').evaluateAll((els) => els.map((e) => e.id.replace(/^msg-/, '')));
  }

  /** Ids of the direct children whose tool shows the failed state. */
  failedChildren() {
    return this.children.locator(':scope > [data-testid] .tool[data-state="failed"]')
      .evaluateAll((tools) => tools.map((t) => t.closest('[id^="msg-"]').id.replace(/^msg-/, '')));
  }
}
