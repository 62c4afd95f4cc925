// Waiting on conditions outside a single locator: server state, whole-page
// comparisons, and every step of a fast-changing DOM.

/**
 * Polls `probe` (sync or async) every `everyMs` until it returns a truthy
 * value, which it resolves with; fails after `timeoutMs` naming `what` and
 * the last value seen.
 */
export async function eventually(probe, what, { timeoutMs = 30000, everyMs = 200 } = {}) {
  const deadline = Date.now() + timeoutMs;
  let last;
  for (;;) {
    last = await probe();
    if (last) return last;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}; last: ${JSON.stringify(last)}`);
    await new Promise((r) => setTimeout(r, everyMs));
  }
}

/**
 * Records in the page every distinct value of `read` (a function run in the
 * page, given `arg`) as the DOM changes, from now on, so a test sees each step
 * even when frames come fast. `recordedStates(page)` returns them.
 */
export async function recordStates(page, read, arg) {
  await page.evaluate(`(() => {
    const read = () => (${read})(${JSON.stringify(arg ?? null)});
    window.__states = [read()];
    new MutationObserver(() => {
      const now = read();
      if (window.__states[window.__states.length - 1] !== now) window.__states.push(now);
    }).observe(document.body, { subtree: true, childList: true, characterData: true, attributes: true });
  })()`);
}

/** The states `recordStates` saw so far. */
export const recordedStates = (page) => page.evaluate(() => window.__states);

/** Marks the document, so `sameDocument(page)` tells whether a navigation reloaded it. */
export const markDocument = (page) => page.evaluate(() => { window.__sameDocument = true; });

/** Whether the document `markDocument` marked is still the one shown. */
export const sameDocument = (page) => page.evaluate(() => window.__sameDocument === true);
