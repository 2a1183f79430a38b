import type { SqlExecutor } from './executor';
import { MIGRATIONS, type Migration } from './migrations';
import { intColumn } from './row';

export class StoreSchemaTooNewError extends Error {
  override readonly name = 'StoreSchemaTooNewError';
  constructor(
    readonly storeVersion: number,
    readonly knownVersion: number,
  ) {
    super(
      `this store was written by a newer Terrarium (schema ${storeVersion}, this build knows up to ${knownVersion}); upgrade Terrarium to open it`,
    );
  }
}

// Any constant works; it only has to be the same in every process that migrates this database.
const MIGRATION_LOCK_KEY = 7_362_041;

/**
 * Brings the schema up to date in one transaction. The advisory lock serialises processes that
 * start at the same time against one PostgreSQL server; the loser then finds nothing left to do.
 */
export async function runMigrations(
  executor: SqlExecutor,
  migrations: readonly Migration[] = MIGRATIONS,
): Promise<{ from: number; to: number }> {
  const known = migrations.reduce((max, m) => Math.max(max, m.version), 0);
  return executor.transaction(async (tx) => {
    await tx.query('SELECT pg_advisory_xact_lock($1)', [MIGRATION_LOCK_KEY]);
    await tx.exec(`CREATE TABLE IF NOT EXISTS schema_migrations (
      version integer PRIMARY KEY,
      name text NOT NULL,
      applied_at timestamptz NOT NULL DEFAULT now()
    )`);
    const [row] = await tx.query(
      'SELECT coalesce(max(version), 0)::int AS version FROM schema_migrations',
    );
    const current = row ? intColumn(row, 'version') : 0;
    if (current > known) throw new StoreSchemaTooNewError(current, known);
    for (const migration of migrations) {
      if (migration.version <= current) continue;
      await tx.exec(migration.sql);
      await tx.query('INSERT INTO schema_migrations (version, name) VALUES ($1, $2)', [
        migration.version,
        migration.name,
      ]);
    }
    return { from: current, to: Math.max(current, known) };
  });
}
