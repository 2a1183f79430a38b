import { describe, expect, it } from 'vitest';
import type { SqlExecutor } from './executor';
import { MIGRATIONS } from './migrations';
import { openOnExecutor } from './open-store';
import { createPgliteExecutor } from './pglite-executor';
import { testCluster } from './test-support/test-store';

/** Every table, column, index and constraint of the public schema, and the applied migrations. */
async function schemaOf(executor: SqlExecutor): Promise<string[]> {
  const rows = await executor.query(
    `SELECT 'column ' || table_name || '.' || column_name || ' ' || data_type || ' '
              || is_nullable || ' ' || coalesce(column_default, '') AS line
       FROM information_schema.columns WHERE table_schema = 'public'
     UNION ALL
     SELECT 'index ' || indexdef FROM pg_indexes WHERE schemaname = 'public'
     UNION ALL
     SELECT 'constraint ' || conrelid::regclass || ' ' || pg_get_constraintdef(oid)
       FROM pg_constraint WHERE connamespace = 'public'::regnamespace
     UNION ALL
     SELECT 'migration ' || version || ' ' || name FROM schema_migrations
     ORDER BY 1`,
  );
  return rows.map((row) => String(row['line']));
}

describe('in-memory stores', () => {
  it('a test store, started from the migrated test cluster, has the schema initdb and every migration give', async () => {
    // The product path of `openStore({ memory: true })`.
    const fresh = await createPgliteExecutor(undefined);
    const freshStore = await openOnExecutor(fresh);
    const expected = await schemaOf(fresh);
    await freshStore.close();
    expect(expected.filter((line) => line.startsWith('migration '))).toHaveLength(
      MIGRATIONS.length,
    );
    expect(expected.filter((line) => line.startsWith('index ')).length).toBeGreaterThan(20);

    // What openMemoryStore() opens.
    const fromCluster = await createPgliteExecutor(undefined, await testCluster());
    const store = await openOnExecutor(fromCluster);
    try {
      expect(await schemaOf(fromCluster)).toEqual(expected);
    } finally {
      await store.close();
    }
  });
});
