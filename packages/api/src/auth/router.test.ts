import type { Store } from '@terrarium/db';
import { openMemoryStore } from '@terrarium/db/test-store';
import { TRPCError } from '@trpc/server';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { appRouter } from '../router';
import { ANONYMOUS_PRINCIPAL, PROGRAM_PRINCIPAL, type Principal } from '../trpc';
import { LOCAL_OWNER } from './sessions';
import type { NewUserInput } from './users';

async function refusal(call: Promise<unknown>): Promise<string> {
  const error = await call.then(
    () => null,
    (thrown: unknown) => thrown,
  );
  if (!(error instanceof TRPCError)) throw new Error('the call was not refused');
  return `${error.code}: ${error.message}`;
}

/** Accounts managed from the web page: what a researcher may change, and what would lock them out. */
describe('auth.users', () => {
  let store: Store;
  beforeEach(async () => {
    store = await openMemoryStore();
  }, 60_000);
  afterEach(async () => {
    await store.close();
  });
  const as = (principal: Principal) => appRouter.createCaller({ store, principal });

  it("makes the local owner's first account a researcher's, since it ends open access", async () => {
    expect(
      await refusal(
        as(LOCAL_OWNER).auth.users.add({ name: 'lena', role: 'labeler', password: 'lena-pass-1' }),
      ),
    ).toBe(
      'BAD_REQUEST: the first account must be a researcher: once one exists everyone logs in, and a labeler cannot manage accounts',
    );
    expect(await store.countUsers()).toBe(0);

    const rosa = await as(LOCAL_OWNER).auth.users.add({
      name: 'rosa',
      role: 'researcher',
      password: 'rosa-pass-1',
    });
    expect([rosa.name, rosa.role]).toEqual(['rosa', 'researcher']);
  });

  it('tells an anonymous visitor on loopback alone whether a researcher exists', async () => {
    const entry = (ownerLink: boolean) =>
      appRouter.createCaller({ store, principal: ANONYMOUS_PRINCIPAL, ownerLink }).auth.entry();
    expect([await entry(true), await entry(false)]).toEqual([
      { accounts: false, ownerLink: true, researcher: false },
      { accounts: false, ownerLink: false, researcher: null },
    ]);
    // Labelers alone (a folder from before the rule held for the command line): nobody can add a
    // researcher on the page, and the login page says what to run instead.
    await store.createUser({ name: 'lars', role: 'labeler', passwordHash: 'not-a-hash' });
    expect([await entry(true), await entry(false)]).toEqual([
      { accounts: true, ownerLink: true, researcher: false },
      { accounts: true, ownerLink: false, researcher: null },
    ]);
    await store.createUser({ name: 'rosa', role: 'researcher', passwordHash: 'not-a-hash' });
    expect([await entry(true), await entry(false)]).toEqual([
      { accounts: true, ownerLink: true, researcher: true },
      { accounts: true, ownerLink: false, researcher: null },
    ]);
  });

  it('holds a program (the CLI with the token) to the same rule, naming the command to run', async () => {
    const lena: NewUserInput = { name: 'lena', role: 'labeler', password: 'lena-pass-1' };
    expect(await refusal(as(PROGRAM_PRINCIPAL).auth.users.add(lena))).toBe(
      'BAD_REQUEST: the first account must be a researcher: once one exists everyone logs in, and a labeler cannot manage accounts; add a researcher first: terrarium users add NAME --role researcher',
    );
    expect(await store.countUsers()).toBe(0);
    // A folder where a labeler came first (before the rule held for programs): more labelers wait
    // for a researcher too.
    await store.createUser({ name: 'lars', role: 'labeler', passwordHash: 'not-a-hash' });
    expect(await refusal(as(PROGRAM_PRINCIPAL).auth.users.add(lena))).toBe(
      "BAD_REQUEST: no account is a researcher's: a labeler can neither manage accounts nor open the researcher pages; add a researcher first: terrarium users add NAME --role researcher",
    );
    await as(PROGRAM_PRINCIPAL).auth.users.add({
      name: 'rosa',
      role: 'researcher',
      password: 'rosa-pass-1',
    });
    expect((await as(PROGRAM_PRINCIPAL).auth.users.add(lena)).role).toBe('labeler');
    expect((await store.listUsers()).map((user) => [user.name, user.role])).toEqual([
      ['lars', 'labeler'],
      ['lena', 'labeler'],
      ['rosa', 'researcher'],
    ]);
  });

  it('lets a researcher add and remove others, never their own account or a taken name', async () => {
    const rosa = await as(PROGRAM_PRINCIPAL).auth.users.add({
      name: 'rosa',
      role: 'researcher',
      password: 'rosa-pass-1',
    });
    const asRosa = as({ kind: 'user', userId: rosa.id, name: 'rosa', role: 'researcher' });
    await asRosa.auth.users.add({ name: 'lena', role: 'labeler', password: 'lena-pass-1' });
    expect(
      await refusal(
        asRosa.auth.users.add({ name: 'lena', role: 'researcher', password: 'other-pass-1' }),
      ),
    ).toBe('CONFLICT: a user named lena already exists');
    expect(
      await refusal(
        asRosa.auth.users.add({ name: 'Lena', role: 'labeler', password: 'lena-pass-2' }),
      ),
    ).toBe('CONFLICT: a user named lena already exists');
    expect(
      await refusal(asRosa.auth.users.add({ name: 'x y', role: 'labeler', password: 'short' })),
    ).toMatch(/^BAD_REQUEST: /);
    expect(await refusal(asRosa.auth.users.remove({ name: 'rosa' }))).toBe(
      'BAD_REQUEST: you cannot remove your own account: ask another researcher',
    );
    expect(await asRosa.auth.users.remove({ name: 'lena' })).toEqual({ removed: true });
    expect(await asRosa.auth.users.remove({ name: 'lena' })).toEqual({ removed: false });
    expect((await asRosa.auth.users.list()).map((user) => user.name)).toEqual(['rosa']);
    // A program (the CLI, a script) may remove anyone but the last researcher: nobody could
    // manage accounts from the UI after it.
    expect(await refusal(as(PROGRAM_PRINCIPAL).auth.users.remove({ name: 'rosa' }))).toBe(
      'BAD_REQUEST: rosa is the last researcher: without one nobody could manage accounts from the UI; add another researcher first',
    );
    await as(PROGRAM_PRINCIPAL).auth.users.add({
      name: 'ravi',
      role: 'researcher',
      password: 'ravi-pass-1',
    });
    expect(await as(PROGRAM_PRINCIPAL).auth.users.remove({ name: 'rosa' })).toEqual({
      removed: true,
    });
  });

  it("changes others' roles, never one's own or the last researcher's, and a session sees it next", async () => {
    const rosa = await as(PROGRAM_PRINCIPAL).auth.users.add({
      name: 'rosa',
      role: 'researcher',
      password: 'rosa-pass-1',
    });
    const lena = await as(PROGRAM_PRINCIPAL).auth.users.add({
      name: 'lena',
      role: 'labeler',
      password: 'lena-pass-1',
    });
    await store.createSession({
      tokenHash: 'lena-session',
      userId: lena.id,
      expiresAt: new Date(Date.now() + 60_000),
    });
    const asRosa = as({ kind: 'user', userId: rosa.id, name: 'rosa', role: 'researcher' });
    expect(await refusal(asRosa.auth.users.setRole({ name: 'rosa', role: 'labeler' }))).toBe(
      'BAD_REQUEST: you cannot change your own role: ask another researcher',
    );
    expect(await refusal(asRosa.auth.users.setRole({ name: 'nobody', role: 'labeler' }))).toBe(
      'NOT_FOUND: no account named nobody',
    );
    expect(await asRosa.auth.users.setRole({ name: 'lena', role: 'researcher' })).toEqual({
      changed: true,
    });
    // Her session stays and carries the new role from its next request on.
    expect((await store.getSession('lena-session', new Date()))?.user?.role).toBe('researcher');
    expect(
      await as(PROGRAM_PRINCIPAL).auth.users.setRole({ name: 'rosa', role: 'labeler' }),
    ).toEqual({ changed: true });
    // lena is now the only researcher: a program cannot make her a labeler either.
    expect(
      await refusal(as(PROGRAM_PRINCIPAL).auth.users.setRole({ name: 'lena', role: 'labeler' })),
    ).toBe(
      'BAD_REQUEST: lena is the last researcher: without one nobody could manage accounts from the UI; make another account a researcher first',
    );
    expect((await store.listUsers()).map((user) => `${user.name} ${user.role}`)).toEqual([
      'lena researcher',
      'rosa labeler',
    ]);
  });
});
