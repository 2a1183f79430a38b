import type { Queryable } from './executor';
import { booleanColumn } from './row';

// The session-level advisory lock an importer holds on its batch while it runs. Whoever can take
// it knows the batch's importer is gone (crashed, killed or finished), so every reader of
// unfinished batches asks through these three functions.

/**
 * The lock's first key, as SQL. Advisory locks are global to a database while batch ids count
 * per schema, so the key is the schema's: two stores in schemas of one database never hold each
 * other's batches.
 */
export const BATCH_LOCK_NAMESPACE_SQL = 'hashtext(current_schema())';

export async function lockBatch(session: Queryable, batchId: string): Promise<void> {
  await session.query(`SELECT pg_advisory_lock(${BATCH_LOCK_NAMESPACE_SQL}, $1::int)`, [batchId]);
}

/** True when the lock was free and is now held by `session`. */
export async function tryLockBatch(session: Queryable, batchId: string): Promise<boolean> {
  const [probe] = await session.query(
    `SELECT pg_try_advisory_lock(${BATCH_LOCK_NAMESPACE_SQL}, $1::int) AS free`,
    [batchId],
  );
  return probe !== undefined && booleanColumn(probe, 'free');
}

export async function unlockBatch(session: Queryable, batchId: string): Promise<void> {
  await session.query(`SELECT pg_advisory_unlock(${BATCH_LOCK_NAMESPACE_SQL}, $1::int)`, [batchId]);
}
