import { expect, test } from '@playwright/test';
import { addUser } from '../packages/api/src/auth/users';
import type { Store } from '../packages/db/src/index';
import { openStore } from '../packages/db/src/index';
import { startServer, type RunningServer } from '../apps/server/src/start-server';
import { e2eToken } from './support/token';

/** Once accounts exist, the UI asks for a login; each role sees what it may. */
test.describe('login, roles and logout in the browser', () => {
  let store: Store;
  let server: RunningServer;

  test.beforeAll(async () => {
    store = await openStore({ memory: true });
    await addUser(store, { name: 'rosa', role: 'researcher', password: 'rosa-password-1' });
    await addUser(store, { name: 'lena', role: 'labeler', password: 'lena-password-1' });
    server = await startServer({ store, token: e2eToken() });
  });
  test.afterAll(async () => {
    await server.close();
    await store.close();
  });

  test('a researcher logs in, works, and logs out', async ({ page }) => {
    await page.goto(server.url);
    const form = page.getByRole('form', { name: 'Log in' });
    await expect(form).toBeVisible();
    // No local-owner session once accounts exist.
    expect(await page.context().cookies(server.url)).toEqual([]);

    await form.getByLabel('Name').fill('rosa');
    await form.getByLabel('Password').fill('not-her-password');
    await form.getByRole('button', { name: 'Log in' }).click();
    await expect(form.getByRole('alert')).toHaveText('wrong name or password');

    await form.getByLabel('Password').fill('rosa-password-1');
    await form.getByRole('button', { name: 'Log in' }).click();
    await expect(page.getByRole('navigation', { name: 'Main' })).toBeVisible();
    await expect(page.locator('.user-menu')).toContainText('rosa (researcher)');
    const cookies = await page.context().cookies(server.url);
    expect(cookies.map((cookie) => [cookie.name, cookie.httpOnly, cookie.sameSite])).toEqual([
      ['terrarium_session', true, 'Strict'],
    ]);
    expect(await page.evaluate(() => fetch('/api/datasets').then((r) => r.status))).toBe(200);

    await page.getByRole('button', { name: 'Log out' }).click();
    await expect(page.getByRole('form', { name: 'Log in' })).toBeVisible();
    expect(await page.evaluate(() => fetch('/api/datasets').then((r) => r.status))).toBe(401);
  });

  test('a labeler is refused researcher routes on the server', async ({ page }) => {
    await page.goto(server.url);
    const form = page.getByRole('form', { name: 'Log in' });
    await form.getByLabel('Name').fill('lena');
    await form.getByLabel('Password').fill('lena-password-1');
    await form.getByRole('button', { name: 'Log in' }).click();
    await expect(page.locator('.user-menu')).toContainText('lena (labeler)');
    // Her home is the labeling page, and the nav offers only what she may open.
    const nav = page.getByRole('navigation', { name: 'Main' });
    await expect(nav.getByRole('link')).toHaveText(['Labeling']);
    await expect(page.getByRole('heading', { level: 1 })).toHaveText('Labeling');
    // A queue that is not hers is said so, not left loading.
    await page.goto(`${server.url}/labeling/999`);
    await expect(page.getByTestId('labeling-refused')).toContainText(
      'no label queue 999: it is not one of your queues, or it no longer exists.',
    );
    expect(await page.evaluate(() => fetch('/api/datasets').then((r) => r.status))).toBe(403);
    const labelQueues = await page.evaluate(() =>
      fetch('/trpc/labels.queues').then((r) => r.status),
    );
    expect(labelQueues).toBe(200);
  });
});
