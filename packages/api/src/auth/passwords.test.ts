import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  startTestServer,
  TEST_PASSWORD,
  type PageHeaders,
  type TestServer,
} from '../testing/test-server';

/**
 * Passwords after an account exists, over real HTTP with browser sessions: a researcher gives a
 * labeler who forgot theirs a new one, and anyone changes their own. Whoever knew the old password
 * is logged out; the session that made the change is not.
 */
describe('auth.users.setPassword and auth.changePassword', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer();
    await server.addUser('rosa', 'researcher');
    await server.addUser('lena', 'labeler');
  }, 120_000);
  afterAll(() => server.close());

  async function call(path: string, page: PageHeaders, input: unknown) {
    const response = await fetch(`${server.url}/trpc/${path}`, {
      method: 'POST',
      headers: { ...page, 'content-type': 'application/json' },
      body: JSON.stringify(input),
    });
    const body: unknown = await response.json();
    const message =
      typeof body === 'object' && body !== null && 'error' in body
        ? JSON.stringify(body.error).match(/"message":"([^"]*)"/)?.[1]
        : undefined;
    return `${response.status}${message === undefined ? '' : ` ${message}`}`;
  }

  /** Whether the session still counts: `auth.whoami` names its account. */
  async function whoIs(page: PageHeaders): Promise<string> {
    const response = await fetch(`${server.url}/trpc/auth.whoami`, { headers: page });
    const text = await response.text();
    return text.match(/"name":"([^"]+)"/)?.[1] ?? 'nobody';
  }

  async function canLogIn(name: string, password: string): Promise<boolean> {
    return server.login(name, password).then(
      () => true,
      () => false,
    );
  }

  it("lets a researcher set a labeler's password, ending the labeler's sessions", async () => {
    const rosa = await server.login('rosa');
    const lena = await server.login('lena');
    expect(await whoIs(lena)).toBe('lena');

    expect(await call('auth.users.setPassword', rosa, { name: 'lena', password: 'short' })).toBe(
      '400 password: at least 8 characters',
    );
    expect(
      await call('auth.users.setPassword', rosa, { name: 'nobody', password: 'long-enough-1' }),
    ).toBe('404 no account named nobody');
    // A labeler cannot set anyone's.
    expect(
      await call('auth.users.setPassword', lena, { name: 'lena', password: 'long-enough-1' }),
    ).toBe('403 this needs the researcher role');

    expect(
      await call('auth.users.setPassword', rosa, { name: 'lena', password: 'lena-new-pass-1' }),
    ).toBe('200');
    expect(await whoIs(lena)).toBe('nobody');
    expect(await whoIs(rosa)).toBe('rosa');
    expect(await canLogIn('lena', TEST_PASSWORD)).toBe(false);
    expect(await canLogIn('lena', 'lena-new-pass-1')).toBe(true);
  });

  it('lets anyone change their own password with the current one, keeping this session only', async () => {
    const here = await server.login('rosa');
    const elsewhere = await server.login('rosa');
    expect(
      await call('auth.changePassword', here, { current: 'not-it', password: 'rosa-new-pass-1' }),
    ).toBe('400 the current password is wrong');
    expect(await whoIs(elsewhere)).toBe('rosa');

    expect(
      await call('auth.changePassword', here, {
        current: TEST_PASSWORD,
        password: 'rosa-new-pass-1',
      }),
    ).toBe('200');
    expect(await whoIs(here)).toBe('rosa');
    expect(await whoIs(elsewhere)).toBe('nobody');
    expect(await canLogIn('rosa', TEST_PASSWORD)).toBe(false);
    expect(await canLogIn('rosa', 'rosa-new-pass-1')).toBe(true);

    // A researcher setting their own through the accounts list stays logged in there too.
    expect(
      await call('auth.users.setPassword', here, { name: 'rosa', password: 'rosa-third-pass-1' }),
    ).toBe('200');
    expect(await whoIs(here)).toBe('rosa');
  });

  it('says that the program token has no password to change', async () => {
    const response = await fetch(`${server.url}/trpc/auth.changePassword`, {
      method: 'POST',
      headers: { ...server.authHeaders, 'content-type': 'application/json' },
      body: JSON.stringify({ current: 'x', password: 'long-enough-1' }),
    });
    expect(response.status).toBe(400);
    expect(await response.text()).toContain(
      'only an account has a password: log in with one to change it',
    );
  });
});
