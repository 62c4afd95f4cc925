// The app shell: header, navigation between routes, embed without chrome, no errors.
import { expectEqual, expectNoErrors } from '../harness.mjs';

export default async function (suite) {
  const server = await suite.server([]);
  const page = await suite.page();

  await suite.test('the shell renders a header and navigation', async () => {
    await page.goto(server.url);
    await page.getByTestId('app-header').waitFor({ timeout: 20000 });
    expectEqual(await page.getByTestId('nav-board').textContent(), 'Board', 'board link');
    await page.locator('main').waitFor();
  });

  await suite.test('navigating to the file view and back works without a reload', async () => {
    await page.evaluate(() => { window.__sameDocument = true; });
    await page.getByTestId('nav-view').click();
    await page.waitForURL('**/view');
    await page.getByText('Open a transcript', { exact: false }).first().waitFor();
    expectEqual(await page.getByTestId('nav-view').getAttribute('aria-current'), 'page', 'current link');
    await page.getByTestId('nav-board').click();
    await page.waitForURL(server.url);
    expectEqual(await page.evaluate(() => window.__sameDocument), true, 'client-side navigation');
  });

  await suite.test('a task route renders the task inside the shell', async () => {
    await page.goto(`${server.url}task/task-demo-review`);
    await page.getByTestId('app-header').waitFor();
    await page.getByTestId('task-title').filter({ hasText: 'Harden the sync closure' }).waitFor();
    await page.getByTestId('subagent-card').first().waitFor();
  });

  await suite.test('an unknown task says so (the only error is the 404 itself)', async () => {
    const missing = await suite.page();
    await missing.goto(`${server.url}task/no-such-task`);
    await missing.getByTestId('empty-state').filter({ hasText: 'Task no-such-task not found' }).waitFor({ timeout: 20000 });
    const others = missing.errors.filter((e) => !/status of 404/.test(e));
    expectEqual(others, [], 'errors other than the 404');
  });

  await suite.test('embed routes render without app chrome', async () => {
    const embed = await suite.page();
    await embed.goto(`${server.url}embed/board/wf-demo`);
    await embed.locator('main').waitFor({ timeout: 20000 });
    await embed.getByTestId('board-column').first().waitFor();
    expectEqual(await embed.getByTestId('app-header').count(), 0, 'header count in embed');
    expectNoErrors(embed);
  });

  await suite.test('the page logged no errors', async () => expectNoErrors(page));
}
