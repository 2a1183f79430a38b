import type { Queryable } from './executor';
import { booleanColumn } from './row';

/**
 * The session-level advisory lock an importer holds on its batch while it runs. Whoever can take
 * it knows the batch's importer is gone (crashed, killed or finished), so every reader of
 * unfinished batches asks through these three functions.
 */
export const IMPORT_BATCH_LOCK_NAMESPACE = 7_362_042;

export async function lockBatch(session: Queryable, batchId: string): Promise<void> {
  await session.query('SELECT pg_advisory_lock($1::int, $2::int)', [
    IMPORT_BATCH_LOCK_NAMESPACE,
    batchId,
  ]);
}

/** True when the lock was free and is now held by `session`. */
export async function tryLockBatch(session: Queryable, batchId: string): Promise<boolean> {
  const [probe] = await session.query('SELECT pg_try_advisory_lock($1::int, $2::int) AS free', [
    IMPORT_BATCH_LOCK_NAMESPACE,
    batchId,
  ]);
  return probe !== undefined && booleanColumn(probe, 'free');
}

export async function unlockBatch(session: Queryable, batchId: string): Promise<void> {
  await session.query('SELECT pg_advisory_unlock($1::int, $2::int)', [
    IMPORT_BATCH_LOCK_NAMESPACE,
    batchId,
  ]);
}
