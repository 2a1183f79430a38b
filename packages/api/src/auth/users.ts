import type { Store, StoredUser, UserRole } from '@terrarium/db';
import { z } from 'zod';
import { MAX_PASSWORD_LENGTH, MIN_PASSWORD_LENGTH } from '@terrarium/schema';
import { hashPassword, verifyPassword } from './password';

export const UserName = z
  .string()
  .regex(/^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/, 'letters, digits, ".", "_" or "-", at most 64');
export const UserRoleSchema = z.enum(['researcher', 'labeler']);
export const Password = z
  .string()
  .min(MIN_PASSWORD_LENGTH, `at least ${MIN_PASSWORD_LENGTH} characters`)
  .max(MAX_PASSWORD_LENGTH, `at most ${MAX_PASSWORD_LENGTH} characters`);

export const NewUserInput = z.object({ name: UserName, role: UserRoleSchema, password: Password });
export type NewUserInput = z.infer<typeof NewUserInput>;

export class UserExistsError extends Error {
  override name = 'UserExistsError';
}

/** A change to the accounts that would lock their managers out; its message says why. */
export class AccountRefusal extends Error {
  override name = 'AccountRefusal';
}

/** Who asks for a change to the accounts: an account's name, the local owner, or a program. */
export type AccountManager =
  { kind: 'account'; name: string } | { kind: 'local-owner' | 'program' };

/**
 * Adds an account for a researcher's request, or a program's (`terrarium users add`). While no
 * account is a researcher's only a researcher's may be added: the first account ends open access
 * on a loopback server (from then on everyone logs in, the local owner too), and a labeler can
 * neither manage accounts nor open the researcher pages, so the owner would be left with the
 * command line alone. One rule for the page and the command line, so that neither can make what
 * the other refuses.
 */
export async function addAccount(
  store: Store,
  input: NewUserInput,
  by: AccountManager,
): Promise<StoredUser> {
  if (input.role !== 'researcher') {
    const users = await store.listUsers();
    if (!users.some((user) => user.role === 'researcher')) {
      const why =
        users.length === 0
          ? 'the first account must be a researcher: once one exists everyone logs in, and a labeler cannot manage accounts'
          : "no account is a researcher's: a labeler can neither manage accounts nor open the researcher pages";
      // The local owner is on the page, whose form is the remedy at hand; a program (the command
      // line, a script) is told the command that is.
      throw new AccountRefusal(
        by.kind === 'local-owner'
          ? why
          : `${why}; add a researcher first: terrarium users add NAME --role researcher`,
      );
    }
  }
  return addUser(store, input);
}

/**
 * The account a manager acts on, with every account, or null when there is none of that name. An
 * account's own is refused (`what` names the change): on the page it would lock them out.
 */
async function otherAccount(
  store: Store,
  name: string,
  by: AccountManager,
  what: string,
): Promise<{ users: StoredUser[]; target: StoredUser } | null> {
  if (by.kind === 'account' && by.name === name)
    throw new AccountRefusal(`you cannot ${what}: ask another researcher`);
  const users = await store.listUsers();
  const target = users.find((user) => user.name === name);
  return target === undefined ? null : { users, target };
}

/**
 * Refuses a change that would take away the last researcher (`target`, a researcher): without one
 * nobody could manage accounts from the UI. `remedy` says what to do first.
 */
function keepLastResearcher(users: readonly StoredUser[], target: StoredUser, remedy: string) {
  if (!users.some((user) => user.role === 'researcher' && user !== target))
    throw new AccountRefusal(
      `${target.name} is the last researcher: without one nobody could manage accounts from the UI; ${remedy} first`,
    );
}

/**
 * Removes an account for a researcher's request; false when there is none of that name. One's own
 * account is refused, so a researcher on the page cannot lock themselves out (another researcher
 * exists whenever one removes anyone's; the command line, a program, may remove any).
 */
export async function removeAccount(
  store: Store,
  name: string,
  by: AccountManager,
): Promise<boolean> {
  const found = await otherAccount(store, name, by, 'remove your own account');
  if (found === null) return false;
  const { users, target } = found;
  if (target.role === 'researcher') keepLastResearcher(users, target, 'add another researcher');
  // Their labels stay (a label names its labeler, not the account row); the items they held go
  // back to their queues now rather than when the leases expire.
  await store.releaseLeasesOf(target.id);
  return store.removeUser(name);
}

/**
 * Gives the account another role for a researcher's request; false when there is no account of
 * that name. As with removal, one's own role is refused from the page (a researcher who made
 * themselves a labeler would lose this very page), and the last researcher stays one.
 */
export async function setAccountRole(
  store: Store,
  name: string,
  role: UserRole,
  by: AccountManager,
): Promise<boolean> {
  const found = await otherAccount(store, name, by, 'change your own role');
  if (found === null) return false;
  const { users, target } = found;
  if (role === 'labeler' && target.role === 'researcher')
    keepLastResearcher(users, target, 'make another account a researcher');
  return store.setUserRole(name, role);
}

/**
 * Gives the account a new password and ends its sessions but `keepSession` (a session token hash),
 * so whoever knew the old one is logged out; false when there is no account of that name. This is
 * how a researcher lets back in a labeler who forgot theirs (removing and re-adding the account
 * would split their labels over two accounts).
 */
export async function setAccountPassword(
  store: Store,
  name: string,
  password: string,
  keepSession: string | null = null,
): Promise<boolean> {
  const passwordHash = await hashPassword(Password.parse(password));
  return store.setUserPassword(name, passwordHash, keepSession);
}

/** One's own password, changed by proving the current one; other sessions of the account end. */
export async function changeOwnPassword(
  store: Store,
  name: string,
  change: { current: string; password: string },
  keepSession: string | null,
): Promise<void> {
  const found = await store.getUserCredentials(name);
  if (found === null || !(await verifyPassword(change.current, found.passwordHash)))
    throw new AccountRefusal('the current password is wrong');
  await setAccountPassword(store, name, change.password, keepSession);
}

/** Validates, hashes the password and stores the account; a UserExistsError for a taken name. */
export async function addUser(store: Store, input: NewUserInput): Promise<StoredUser> {
  const { name, role, password } = NewUserInput.parse(input);
  // Names differing only in case ("Ada", "ada") would read as one person in every list and export.
  const twin = (await store.listUsers()).find(
    (user) => user.name.toLowerCase() === name.toLowerCase(),
  );
  if (twin !== undefined) throw new UserExistsError(`a user named ${twin.name} already exists`);
  const passwordHash = await hashPassword(password);
  const user = await store.createUser({ name, role, passwordHash });
  if (user === null) throw new UserExistsError(`a user named ${name} already exists`);
  return user;
}

export type { StoredUser, UserRole };
