import { expect, test, type Page } from '@playwright/test';
import { addUser } from '../packages/api/src/auth/users';
import type { Store } from '../packages/db/src/index';
import { openStore } from '../packages/db/src/index';
import { startServer, type RunningServer } from '../apps/server/src/start-server';
import { localOwnerLink } from '../packages/api/src/http/request-gate';
import { sessionCookieName } from '../packages/api/src/auth/sessions';
import { statusFromPage } from './support/page-fetch';
import { e2eToken } from './support/token';

// Each server here is a store of its own: none of the served store's cookie (global-setup.ts).
test.use({ storageState: { cookies: [], origins: [] } });

/** Fills the login form and sends it. */
async function logIn(page: Page, name: string, password: string): Promise<void> {
  const form = page.getByRole('form', { name: 'Log in' });
  await form.getByLabel('Name').fill(name);
  await form.getByLabel('Password').fill(password);
  await form.getByRole('button', { name: 'Log in' }).click();
}

/** The Labeling page from the header (where researchers manage accounts). */
async function openLabeling(page: Page): Promise<void> {
  await page
    .getByRole('navigation', { name: 'Main' })
    .getByRole('link', { name: 'Labeling' })
    .click();
}

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
      [sessionCookieName(Number(new URL(server.url).port)), true, 'Strict'],
    ]);
    // The page's requests carry the session's proof, which only this origin can read, beside the
    // cookie; the cookie alone, which the browser sends to every port of the host, opens nothing.
    const cookieAlone = () => page.evaluate(async () => (await fetch('/api/datasets')).status);
    expect([await statusFromPage(page, '/api/datasets'), await cookieAlone()]).toEqual([200, 401]);

    // A second tab of the same browser, open on another page when the first logs out.
    // On a page that asks the server nothing by itself (Benches polls), so only the other tab's
    // logout can change it.
    const other = await page.context().newPage();
    await other.goto(`${server.url}/labeling`);
    await expect(other.locator('.user-menu')).toContainText('rosa (researcher)');

    await page.getByRole('button', { name: 'Log out' }).click();
    await expect(page.getByRole('form', { name: 'Log in' })).toBeVisible();
    expect(await page.evaluate(() => localStorage.getItem('terrarium.sessionProof'))).toBeNull();
    // walk 42: the other tab showed "log in first" over its stale page until a request of its own
    // was refused. It follows the logout at once, with no request or reload of its own.
    await expect(other.getByRole('form', { name: 'Log in' })).toBeVisible({ timeout: 3_000 });
    await expect(other.locator('.user-menu')).toHaveCount(0);
    expect(await statusFromPage(page, '/api/datasets')).toBe(401);
    // And the login: logging in in one tab logs the other in. (Logging in there too, as a user
    // would when both show the form, started a second session that replaced the first's cookie.)
    await logIn(other, 'rosa', 'rosa-password-1');
    await expect(page.locator('.user-menu')).toContainText('rosa (researcher)');
    await expect(page.getByRole('form', { name: 'Log in' })).toHaveCount(0);
    await other.close();
    expect(await statusFromPage(page, '/api/datasets')).toBe(200);
  });

  test('a page on another port cannot log this browser in as an account of its own', async ({
    page,
  }) => {
    await page.goto(server.url);
    await logIn(page, 'rosa', 'rosa-password-1');
    await expect(page.locator('.user-menu')).toContainText('rosa (researcher)');
    const rosasProof = await page.evaluate(() => localStorage.getItem('terrarium.sessionProof'));
    // walk 42: a program on another port logged in as an account it holds (lena), set that
    // session's cookie on 127.0.0.1 (browsers let any port do so) and sent the browser here with
    // the session's proof in the fragment the owner's link uses. The page took it: it worked as
    // lena from then on.
    const login = await fetch(`${server.url}/trpc/auth.login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', origin: server.url },
      body: JSON.stringify({ name: 'lena', password: 'lena-password-1' }),
    });
    const cookieName = sessionCookieName(Number(new URL(server.url).port));
    const lenasCookie = new RegExp(`^${cookieName}=([\\w-]+)`).exec(
      login.headers.getSetCookie()[0] ?? '',
    )?.[1];
    const lenasProof = /"sessionProof":"([\w-]+)"/.exec(await login.text())?.[1];
    expect([lenasCookie, lenasProof].map((value) => value?.length)).toEqual([43, 43]);
    await page
      .context()
      .addCookies([{ name: cookieName, value: lenasCookie ?? '', url: server.url }]);
    await page.goto(`${server.url}/labeling#session-proof=${lenasProof ?? ''}`);
    // Not lena: the fragment is kept only when it is a local owner's (the owner's link). Rosa's
    // cookie was replaced (a denial of service any such page can do), so the page asks for a login.
    await expect(page.getByRole('form', { name: 'Log in' })).toBeVisible();
    await expect(page).toHaveURL(`${server.url}/labeling`);
    expect(await page.evaluate(() => localStorage.getItem('terrarium.sessionProof'))).toBe(
      rosasProof,
    );
    await expect(page.locator('.user-menu')).toHaveCount(0);
  });

  test('a researcher adds a labeler on the Labeling page, who then logs in', async ({ page }) => {
    await page.goto(server.url);
    await logIn(page, 'rosa', 'rosa-password-1');
    await openLabeling(page);
    const accounts = page.getByRole('region', { name: 'Accounts' });
    await expect(accounts.getByTestId('account-rosa')).toContainText('you');
    const form = accounts.getByRole('form', { name: 'New account' });
    await form.getByLabel('Name').fill('mia');
    await form.getByLabel('Password').fill('short');
    await form.getByRole('button', { name: 'Add account' }).click();
    await expect(accounts.getByRole('alert')).toHaveText('password: at least 8 characters');
    await form.getByLabel('Password').fill('mia-password-1');
    await form.getByRole('button', { name: 'Add account' }).click();
    await expect(accounts.getByRole('status')).toHaveText('Added labeler mia.');
    await expect(accounts.getByTestId('account-mia')).toContainText('labeler');

    await page.getByRole('button', { name: 'Log out' }).click();
    await logIn(page, 'mia', 'mia-password-1');
    await expect(page.locator('.user-menu')).toContainText('mia (labeler)');
    // A labeler manages no accounts: the panel is not offered, and the server refuses the list.
    await expect(page.getByRole('heading', { level: 1 })).toHaveText('Labeling');
    await expect(page.getByRole('region', { name: 'Accounts' })).toHaveCount(0);
    expect(await statusFromPage(page, '/trpc/auth.users.list')).toBe(403);
  });

  test('a labeler changes her password; a researcher sets her a new one when she forgets it', async ({
    page,
  }) => {
    await addUser(store, { name: 'noor', role: 'labeler', password: 'noor-password-1' });
    await page.goto(server.url);
    await logIn(page, 'noor', 'noor-password-1');
    await page.locator('.user-menu').getByRole('button', { name: 'Password' }).click();
    const dialog = page.getByRole('dialog', { name: 'Change your password' });
    await dialog.getByLabel('Current password').fill('not-her-password');
    await dialog.getByLabel('New password', { exact: true }).fill('noor-password-2');
    await dialog.getByLabel('New password again').fill('noor-password-2');
    await dialog.getByRole('button', { name: 'Change password' }).click();
    await expect(dialog.getByRole('alert')).toHaveText('the current password is wrong');
    await dialog.getByLabel('Current password').fill('noor-password-1');
    await dialog.getByRole('button', { name: 'Change password' }).click();
    await expect(dialog.getByTestId('password-changed')).toBeVisible();
    await dialog.getByRole('button', { name: 'Close' }).click();
    await expect(dialog).toBeHidden();
    // This session stays; the old password no longer logs in.
    await expect(page.locator('.user-menu')).toContainText('noor (labeler)');
    await page.getByRole('button', { name: 'Log out' }).click();
    await logIn(page, 'noor', 'noor-password-1');
    await expect(page.getByRole('form', { name: 'Log in' }).getByRole('alert')).toHaveText(
      'wrong name or password',
    );

    await logIn(page, 'rosa', 'rosa-password-1');
    await openLabeling(page);
    const accounts = page.getByRole('region', { name: 'Accounts' });
    await accounts
      .getByTestId('account-noor')
      .getByRole('button', { name: 'New password' })
      .click();
    await accounts.getByLabel('New password for noor').fill('noor-password-3');
    await accounts.getByRole('button', { name: 'Set password' }).click();
    await expect(accounts.getByRole('status')).toHaveText(
      'Set a new password for noor; they were logged out everywhere.',
    );
    await page.getByRole('button', { name: 'Log out' }).click();
    await logIn(page, 'noor', 'noor-password-3');
    await expect(page.locator('.user-menu')).toContainText('noor (labeler)');
  });

  test('a labeler is refused researcher routes on the server', async ({ page }) => {
    await page.goto(server.url);
    await logIn(page, 'lena', 'lena-password-1');
    await expect(page.locator('.user-menu')).toContainText('lena (labeler)');
    // Her home is the labeling page, and the nav offers only what she may open.
    const nav = page.getByRole('navigation', { name: 'Main' });
    await expect(nav.getByRole('link')).toHaveText(['Labeling']);
    await expect(page.getByRole('heading', { level: 1 })).toHaveText('Labeling');
    // Under its own address, also when she opens the datasets' one.
    await expect(page).toHaveURL(`${server.url}/labeling`);
    await page.goto(`${server.url}/datasets`);
    await expect(page).toHaveURL(`${server.url}/labeling`);
    // A queue that is not hers is said so, not left loading.
    await page.goto(`${server.url}/labeling/999`);
    await expect(page.getByTestId('labeling-refused')).toContainText(
      'no label queue 999: it is not one of your queues, or it no longer exists.',
    );
    expect(await statusFromPage(page, '/api/datasets')).toBe(403);
    // A researcher's page is said to be one, not shown with controls that would each fail.
    for (const path of ['/labeling/1/agreement', '/benches', '/rule-sets', '/datasets/1']) {
      await page.goto(`${server.url}${path}`);
      await expect(page.getByTestId('researchers-only')).toContainText(
        'You are logged in as a labeler: this page is a researcher’s.',
      );
    }
    expect(await statusFromPage(page, '/trpc/labels.queues')).toBe(200);
  });
});

/**
 * On 127.0.0.1 with no accounts, the browser that opens the link `serve` prints is the owner, until
 * it makes the first account.
 */
test.describe('the first account, made from the page', () => {
  let store: Store;
  let server: RunningServer;

  test.beforeAll(async () => {
    store = await openStore({ memory: true });
    server = await startServer({ store, token: e2eToken() });
  });
  test.afterAll(async () => {
    await server.close();
    await store.close();
  });

  test("the owner's first account is a researcher's, and then everyone logs in", async ({
    page,
  }) => {
    // Any user of this machine reaches the page; only the link (the token) makes one the owner.
    await page.goto(`${server.url}/labeling`);
    await expect(page.getByRole('form', { name: 'Log in' }).getByTestId('login-hint')).toHaveText(
      'No accounts yet. On the machine Terrarium runs on, open the link terrarium serve printed (it ends in ?token=…), or make the first researcher with pnpm terrarium users add NAME --role researcher.',
    );
    // A link with another server's token is said to be one, not silently ignored.
    await page.goto(localOwnerLink(`${server.url}/labeling`, 'another-servers-token-0123'));
    await expect(page.getByTestId('owner-link-refused')).toHaveText(
      'That link did not log you in: its token is not this server’s (each data folder has its own; use the link this server printed).',
    );
    // Out of the address bar, so that a reload or a bookmark does not repeat it.
    await expect(page).toHaveURL(`${server.url}/labeling`);
    await page.goto(localOwnerLink(`${server.url}/labeling`, e2eToken()));
    await expect(page).toHaveURL(`${server.url}/labeling`);
    const accounts = page.getByRole('region', { name: 'Accounts' });
    await expect(accounts).toContainText('Nobody logs in yet');
    const form = accounts.getByRole('form', { name: 'New account' });
    await expect(form.getByLabel('Role')).toHaveValue('researcher');
    await form.getByLabel('Role').selectOption('labeler');
    await form.getByLabel('Name').fill('lena');
    await form.getByLabel('Password').fill('lena-password-1');
    await form.getByRole('button', { name: 'Add account' }).click();
    await expect(accounts.getByRole('alert')).toHaveText(
      'the first account must be a researcher: once one exists everyone logs in, and a labeler cannot manage accounts',
    );
    await form.getByLabel('Role').selectOption('researcher');
    await form.getByLabel('Name').fill('rosa');
    await form.getByLabel('Password').fill('rosa-password-1');
    await form.getByRole('button', { name: 'Add account' }).click();

    const login = page.getByRole('form', { name: 'Log in' });
    await expect(login.getByTestId('login-hint')).toHaveText(
      'Account rosa made: from now on everyone logs in, you too. Log in with it.',
    );
    await expect(login.getByLabel('Name')).toHaveValue('rosa');
    await login.getByLabel('Password').fill('rosa-password-1');
    await login.getByRole('button', { name: 'Log in' }).click();
    await expect(page.locator('.user-menu')).toContainText('rosa (researcher)');
  });
});

/** Two users of one machine, each with a server of their own on 127.0.0.1, in one browser. */
test.describe('two servers on one host', () => {
  let stores: Store[] = [];
  let servers: RunningServer[] = [];
  const tokens = ['first-servers-token-4a1f9c27d0', 'second-servers-token-8be03d55a2'];

  test.beforeAll(async () => {
    stores = await Promise.all(tokens.map(() => openStore({ memory: true })));
    servers = await Promise.all(
      tokens.map((token, at) => {
        const store = stores[at];
        if (store === undefined) throw new Error('no store');
        return startServer({ store, token });
      }),
    );
  });
  test.afterAll(async () => {
    await Promise.all(servers.map((server) => server.close()));
    await Promise.all(stores.map((store) => store.close()));
  });

  test("opening one server's link keeps the other's page logged in", async ({ context }) => {
    // Walk 42: browsers keep cookies per host, not per port. Both servers set one cookie name, so
    // opening the second server's link replaced the first's cookie, and the first's page fell
    // back to its login page at its next request.
    const [first, second] = servers;
    const [firstToken, secondToken] = tokens;
    if (!first || !second || !firstToken || !secondToken) throw new Error('no servers');
    const firstPage = await context.newPage();
    await firstPage.goto(localOwnerLink(`${first.url}/benches`, firstToken));
    await expect(firstPage.getByRole('heading', { name: 'Benches', level: 1 })).toBeVisible();
    const secondPage = await context.newPage();
    await secondPage.goto(localOwnerLink(`${second.url}/benches`, secondToken));
    await expect(secondPage.getByRole('heading', { name: 'Benches', level: 1 })).toBeVisible();

    expect([
      await statusFromPage(firstPage, '/api/datasets'),
      await statusFromPage(secondPage, '/api/datasets'),
    ]).toEqual([200, 200]);
    await firstPage.reload();
    await expect(firstPage.getByRole('heading', { name: 'Benches', level: 1 })).toBeVisible();
    await expect(firstPage.getByRole('form', { name: 'Log in' })).toHaveCount(0);
    const names = (await context.cookies(first.url)).map((cookie) => cookie.name).toSorted();
    expect(names).toEqual(
      [first.url, second.url].map((url) => sessionCookieName(Number(new URL(url).port))).toSorted(),
    );
  });
});
