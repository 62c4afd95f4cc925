// Opening a whole transcript: every collapsed card, group, disclosure and
// "show all" at once, so a check sees what a reader could open.

/** Clicks open every collapsed card, group and disclosure in view, until nothing is left. */
export async function openEverything(page) {
  for (let round = 0; round < 25; round += 1) {
    const opened = await page.evaluate(() => {
      const root = document.querySelector('[data-testid="transcript"]');
      let n = 0;
      for (const button of root.querySelectorAll('button[aria-expanded="false"], [data-testid="show-all"]')) {
        button.click();
        n += 1;
      }
      for (const details of root.querySelectorAll('details:not([open])')) {
        details.open = true;
        n += 1;
      }
      // Two frames for what was opened to render (one round trip: fewer trace steps).
      return n === 0 ? 0 : new Promise((r) => { requestAnimationFrame(() => requestAnimationFrame(() => r(n))); });
    });
    if (opened === 0) return;
  }
  throw new Error('something kept collapsing after 25 rounds of opening');
}
