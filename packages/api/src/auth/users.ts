import type { Store, StoredUser, UserRole } from '@terrarium/db';
import { z } from 'zod';
import { hashPassword, MAX_PASSWORD_LENGTH, MIN_PASSWORD_LENGTH } from './password';

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

/** Validates, hashes the password and stores the account; a UserExistsError for a taken name. */
export async function addUser(store: Store, input: NewUserInput): Promise<StoredUser> {
  const { name, role, password } = NewUserInput.parse(input);
  const passwordHash = await hashPassword(password);
  const user = await store.createUser({ name, role, passwordHash });
  if (user === null) throw new UserExistsError(`a user named ${name} already exists`);
  return user;
}

export type { StoredUser, UserRole };
