import type { Row, SqlExecutor } from './executor';
import { nullableTextColumn, textColumn, ISO_UTC } from './row';
import type { NewSession, NewUser, SessionRecord, Store, StoredUser, UserRole } from './store';

/** The part of the store that accounts and sessions add (see store.ts for the contracts). */
export type AuthStore = Pick<
  Store,
  | 'createUser'
  | 'listUsers'
  | 'countUsers'
  | 'getUserCredentials'
  | 'removeUser'
  | 'setUserPassword'
  | 'setUserRole'
  | 'createSession'
  | 'getSession'
  | 'deleteSession'
  | 'deleteExpiredSessions'
>;

const ID_PATTERN = /^[1-9][0-9]{0,17}$/;
const USER_COLUMNS = `u.id::text AS id, u.name, u.role,
  to_char(u.created_at AT TIME ZONE 'UTC', ${ISO_UTC}) AS created_at`;

function roleColumn(row: Row): UserRole {
  const role = textColumn(row, 'role');
  if (role !== 'researcher' && role !== 'labeler') throw new Error(`unknown role ${role}`);
  return role;
}

function userFromRow(row: Row): StoredUser {
  return {
    id: textColumn(row, 'id'),
    name: textColumn(row, 'name'),
    role: roleColumn(row),
    createdAt: textColumn(row, 'created_at'),
  };
}

export function createAuthStore(executor: SqlExecutor): AuthStore {
  return {
    async createUser(user: NewUser) {
      const rows = await executor.query(
        `INSERT INTO users (name, role, password_hash) VALUES ($1, $2, $3)
         ON CONFLICT (name) DO NOTHING
         RETURNING id::text AS id, name, role,
           to_char(created_at AT TIME ZONE 'UTC', ${ISO_UTC}) AS created_at`,
        [user.name, user.role, user.passwordHash],
      );
      const [row] = rows;
      return row ? userFromRow(row) : null;
    },

    async listUsers() {
      const rows = await executor.query(`SELECT ${USER_COLUMNS} FROM users u ORDER BY u.name`);
      return rows.map(userFromRow);
    },

    async countUsers() {
      const [row] = await executor.query('SELECT count(*)::int AS n FROM users');
      return row ? Number(row['n']) : 0;
    },

    async getUserCredentials(name) {
      const [row] = await executor.query(
        `SELECT ${USER_COLUMNS}, u.password_hash FROM users u WHERE u.name = $1`,
        [name],
      );
      return row
        ? { user: userFromRow(row), passwordHash: textColumn(row, 'password_hash') }
        : null;
    },

    async removeUser(name) {
      // Sessions go with the user (ON DELETE CASCADE), so a removed account is logged out at once.
      const rows = await executor.query('DELETE FROM users WHERE name = $1 RETURNING id', [name]);
      return rows.length > 0;
    },

    async setUserPassword(name, passwordHash, keepSession) {
      const [row] = await executor.query(
        `WITH changed AS (
           UPDATE users SET password_hash = $2 WHERE name = $1 RETURNING id
         ), ended AS (
           DELETE FROM sessions s USING changed c
           WHERE s.user_id = c.id AND s.token_hash IS DISTINCT FROM $3
           RETURNING 1
         )
         SELECT (SELECT count(*) FROM changed)::int AS changed`,
        [name, passwordHash, keepSession],
      );
      return row !== undefined && Number(row['changed']) > 0;
    },

    async setUserRole(name, role) {
      const rows = await executor.query('UPDATE users SET role = $2 WHERE name = $1 RETURNING id', [
        name,
        role,
      ]);
      return rows.length > 0;
    },

    async createSession(session: NewSession) {
      if (session.userId !== null && !ID_PATTERN.test(session.userId)) {
        throw new Error(`no user ${session.userId}`);
      }
      await executor.query(
        'INSERT INTO sessions (token_hash, user_id, expires_at) VALUES ($1, $2::bigint, $3::timestamptz)',
        [session.tokenHash, session.userId, session.expiresAt.toISOString()],
      );
    },

    async getSession(tokenHash, now) {
      const [row] = await executor.query(
        `SELECT s.user_id::text AS user_id,
           to_char(s.expires_at AT TIME ZONE 'UTC', ${ISO_UTC}) AS expires_at,
           u.name, u.role, to_char(u.created_at AT TIME ZONE 'UTC', ${ISO_UTC}) AS created_at
         FROM sessions s LEFT JOIN users u ON u.id = s.user_id
         WHERE s.token_hash = $1 AND s.expires_at > $2::timestamptz`,
        [tokenHash, now.toISOString()],
      );
      if (!row) return null;
      const userId = nullableTextColumn(row, 'user_id');
      const record: SessionRecord = {
        expiresAt: textColumn(row, 'expires_at'),
        user:
          userId === null
            ? null
            : {
                id: userId,
                name: textColumn(row, 'name'),
                role: roleColumn(row),
                createdAt: textColumn(row, 'created_at'),
              },
      };
      return record;
    },

    async deleteSession(tokenHash) {
      await executor.query('DELETE FROM sessions WHERE token_hash = $1', [tokenHash]);
    },

    async deleteExpiredSessions(now) {
      const rows = await executor.query(
        'DELETE FROM sessions WHERE expires_at <= $1::timestamptz RETURNING token_hash',
        [now.toISOString()],
      );
      return rows.length;
    },
  };
}
