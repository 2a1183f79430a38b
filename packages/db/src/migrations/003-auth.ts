import type { Migration } from './migration';

/**
 * Accounts and server-side sessions. A password is stored only as its scrypt hash (the format is
 * the api's business, `scrypt$N$r$p$salt$hash`); a session only as the SHA-256 of its cookie
 * value, so reading the database does not hand out live sessions. A session without a user is
 * the local owner's (loopback, no accounts yet): it stops counting once any account exists.
 */
export const auth: Migration = {
  version: 3,
  name: 'auth',
  sql: `
CREATE TABLE users (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  name text NOT NULL UNIQUE CHECK (name <> ''),
  role text NOT NULL CHECK (role IN ('researcher', 'labeler')),
  password_hash text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE sessions (
  token_hash text PRIMARY KEY,
  user_id bigint REFERENCES users (id) ON DELETE CASCADE,
  expires_at timestamptz NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now()
);

CREATE INDEX sessions_expires_at ON sessions (expires_at);
`,
};
