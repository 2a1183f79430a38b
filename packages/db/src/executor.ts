/**
 * The thin layer both drivers sit behind, so every query in this package is written once.
 *
 * Raw SQL rather than a query builder: bulk loads through drizzle's query building measured 2-3x
 * slower than `json_to_recordset` on both PGlite and PostgreSQL (shared/notes/stack-notes.md,
 * "Storage speed"), and the rest of the queries are few and easier to read as SQL.
 */
export type Row = Record<string, unknown>;

export interface Queryable {
  /** One statement with `$1…` parameters; rows come back with columns as the driver parsed them. */
  query(sql: string, params?: readonly unknown[]): Promise<Row[]>;
  /** Several statements separated by semicolons, no parameters (migrations). */
  exec(sql: string): Promise<void>;
  /**
   * `COPY target FROM … WITH (FORMAT binary)` of `data` (copy-binary.ts): `target` is a table with
   * its column list, e.g. `step_pages (trajectory_id, …)`.
   */
  copyFrom(target: string, data: Uint8Array): Promise<void>;
}

/** A connection kept for one holder, e.g. to hold a session-level advisory lock. */
export interface SqlSession extends Queryable {
  release(): Promise<void>;
}

export interface SqlExecutor extends Queryable {
  readonly backend: 'pglite' | 'postgres';
  transaction<T>(work: (tx: Queryable) => Promise<T>): Promise<T>;
  /**
   * A dedicated connection. PGlite has a single connection, so there the session is the database
   * itself; that is enough because an embedded folder belongs to one process (data-dir.ts).
   */
  reserveSession(): Promise<SqlSession>;
  /**
   * pg-boss's access path: with parameters one statement, without them a script of several
   * (its migrations and locked maintenance run `BEGIN; …; COMMIT` in one call). Rows are the last
   * statement's.
   */
  runScript(sql: string, params?: readonly unknown[]): Promise<{ rows: Row[] }>;
  close(): Promise<void>;
}
