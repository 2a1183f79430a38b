import { join } from 'node:path';
import { acquireDataDir, resolveDataDir } from './data-dir';
import type { SqlExecutor } from './executor';
import { runMigrations } from './migrate';
import { createPgExecutor } from './pg-executor';
import { createPgliteExecutor } from './pglite-executor';
import { reindexTerminalText } from './search-reindex';
import { createSqlStore, deleteAbandonedImports, type SqlStoreHooks } from './sql-store';
import type { Store, StoreOptions } from './store';

/** PGlite keeps its cluster in this sub-folder, so the data folder can hold the lock and more. */
export const PGLITE_SUBDIR = 'pglite';

/**
 * Opens the store: PostgreSQL when `databaseUrl` is set, else in-memory PGlite when `memory`, else
 * PGlite in the data folder (taken exclusively until `close()`). Migrates the schema, deletes
 * imports that never committed, and re-indexes pages stored before search version 2.
 */
export async function openStore(options: StoreOptions): Promise<Store> {
  if (options.databaseUrl) return openOnExecutor(await createPgExecutor(options.databaseUrl));
  if (options.memory) return openOnExecutor(await createPgliteExecutor(undefined));
  const lock = await acquireDataDir(resolveDataDir(options.dataDir));
  try {
    const executor = await createPgliteExecutor(join(lock.dataDir, PGLITE_SUBDIR));
    return await openOnExecutor(executor, { afterClose: () => lock.release() });
  } catch (error) {
    await lock.release();
    throw error;
  }
}

/** Migrates and cleans a freshly opened database, closing it again if either fails. */
export async function openOnExecutor(
  executor: SqlExecutor,
  hooks: SqlStoreHooks = {},
): Promise<Store> {
  try {
    await runMigrations(executor);
    await deleteAbandonedImports(executor);
    // Search over pages stored before version 2 works as it did until they are re-indexed; a
    // failure here must never keep the store from opening (the next open tries again).
    await reindexTerminalText(executor).catch(() => 0);
  } catch (error) {
    await executor.close().catch(() => {});
    throw error;
  }
  return createSqlStore(executor, hooks);
}
