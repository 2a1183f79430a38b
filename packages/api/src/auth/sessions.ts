import { createHmac } from 'node:crypto';
import type { Store } from '@terrarium/db';
import { LOCAL_OWNER_ID } from '@terrarium/schema';

import type { Principal } from '../trpc';
import { verifyPassword, unknownUserHash } from './password';
import { newSecret, secretHash } from './secret';

/**
 * The session cookie's name on the server listening on `port`. Browsers keep cookies per host,
 * not per port: under one fixed name, two servers on 127.0.0.1 (two data folders, two users of a
 * shared machine) overwrote each other's cookie at every login, each logging the other's page out.
 * The port tells them apart and gives nothing away (a name derived from the program token would
 * let any page on another port, which is sent the name, test guesses of the token offline).
 */
export function sessionCookieName(port: number | undefined): string {
  return port === undefined ? 'terrarium_session' : `terrarium_session_${port}`;
}
/** A login lasts a week; the owner's link starts a new one whenever it is opened. */
export const SESSION_TTL_MS = 7 * 24 * 60 * 60 * 1000;

/**
 * The person at the keyboard of a loopback server that has no accounts yet. Not a row in `users`:
 * its id is a fixed word, never a number, so it cannot collide with an account id.
 */
export const LOCAL_OWNER: Principal = {
  kind: 'user',
  userId: LOCAL_OWNER_ID,
  name: 'owner',
  role: 'researcher',
};

/**
 * The second half of a browser session, beside its cookie: an HMAC of the cookie's value under the
 * program token. Browsers send a cookie to every port of its host, so a page another program serves
 * on 127.0.0.1 receives this server's cookie, and can set one of its own here (cookie tossing). The
 * proof lives where only this origin's pages can read it (localStorage is scoped by port) and is
 * sent as a header, so a cookie without it opens nothing. Derived, not stored: no migration, and a
 * new program token ends every browser session with the old one. `v2`: proofs made before downloads
 * took one-time links went into download URLs the browser keeps; they open nothing now.
 */
export function sessionProof(programToken: string, sessionToken: string): string {
  return createHmac('sha256', programToken)
    .update(`terrarium session proof v2\n${sessionToken}`, 'utf8')
    .digest('base64url');
}

export interface IssuedSession {
  /** The cookie value; only its hash is stored. */
  token: string;
  expiresAt: Date;
}

/** A new server-side session for `userId` (null: the local owner). */
export async function startSession(
  store: Store,
  userId: string | null,
  now: Date,
): Promise<IssuedSession> {
  const token = newSecret();
  const expiresAt = new Date(now.getTime() + SESSION_TTL_MS);
  await store.createSession({ tokenHash: secretHash(token), userId, expiresAt });
  return { token, expiresAt };
}

export async function endSession(store: Store, token: string): Promise<void> {
  await store.deleteSession(secretHash(token));
}

/**
 * The principal a session cookie stands for. A local-owner session counts only while the server
 * offers local-owner access (loopback, no accounts): creating the first account ends them all.
 */
export async function principalOfSession(
  store: Store,
  token: string,
  options: { localOwnerAllowed: boolean; now: Date },
): Promise<Principal | null> {
  const session = await store.getSession(secretHash(token), options.now);
  if (session === null) return null;
  if (session.user === null) {
    if (!options.localOwnerAllowed || (await store.countUsers()) > 0) return null;
    return LOCAL_OWNER;
  }
  const { id, name, role } = session.user;
  return { kind: 'user', userId: id, name, role };
}

/** Checks a name and password; the principal and a new session, or null for either being wrong. */
export async function logIn(
  store: Store,
  name: string,
  password: string,
  now: Date,
): Promise<{ principal: Principal; session: IssuedSession } | null> {
  // A name copied with a space around it is still the name (names hold no spaces).
  const found = await store.getUserCredentials(name.trim());
  // An unknown name is checked against a dummy hash so both failures take the same time.
  const matches = await verifyPassword(password, found?.passwordHash ?? (await unknownUserHash()));
  if (!found || !matches) return null;
  const { id, role } = found.user;
  return {
    principal: { kind: 'user', userId: id, name: found.user.name, role },
    session: await startSession(store, id, now),
  };
}
