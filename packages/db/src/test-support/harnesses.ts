import { randomBytes } from 'node:crypto';
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { Client } from 'pg';
import type { SqlExecutor } from '../executor';
import { openStore, PGLITE_SUBDIR } from '../open-store';
import { createPgExecutor } from '../pg-executor';
import { createPgliteExecutor } from '../pglite-executor';
import type { Store, StoreOptions } from '../store';
import { openMemoryStore, seededDataDir } from './test-store';

/** A fresh, isolated place for one store: an in-memory PGlite, a temp folder, or a PG schema. */
export interface StoreLocation {
  options: StoreOptions;
  /**
   * Opens the store at this location. For in-memory PGlite, each call is a new empty store,
   * started from the migrated test cluster (test-store.ts).
   */
  open(): Promise<Store>;
  /** Raw access to the same database, for what a store cannot do (plant a newer schema version). */
  openRaw(): Promise<SqlExecutor>;
  dispose(): Promise<void>;
}

export interface StoreHarness {
  name: string;
  /** Whether closing and reopening keeps the data (false for in-memory PGlite). */
  persistent: boolean;
  createLocation(): Promise<StoreLocation>;
}

export const pgliteMemoryHarness: StoreHarness = {
  name: 'PGlite in memory',
  persistent: false,
  async createLocation() {
    return {
      options: { memory: true },
      open: openMemoryStore,
      openRaw: () => createPgliteExecutor(undefined),
      dispose: async () => {},
    };
  },
};

export const pgliteDiskHarness: StoreHarness = {
  name: 'PGlite on disk',
  persistent: true,
  async createLocation() {
    // Seeded with the migrated cluster: the first open of a new folder (initdb in a child
    // process) is pglite-executor.pglite-disk.test.ts's to test, not every store test's to wait for.
    const dataDir = await seededDataDir('db');
    return {
      options: { dataDir },
      open: () => openStore({ dataDir }),
      openRaw: () => createPgliteExecutor(join(dataDir, PGLITE_SUBDIR)),
      dispose: () => rm(dataDir, { recursive: true, force: true }),
    };
  },
};

/** Each location is its own schema, reached through `search_path` in the connection string. */
export function postgresHarness(adminUrl: () => string): StoreHarness {
  return {
    name: 'PostgreSQL',
    persistent: true,
    async createLocation() {
      const schema = `t_${randomBytes(6).toString('hex')}`;
      const admin = new Client({ connectionString: adminUrl() });
      await admin.connect();
      await admin.query(`CREATE SCHEMA ${schema}`);
      await admin.end();
      const url = new URL(adminUrl());
      url.searchParams.set('options', `-c search_path=${schema}`);
      const databaseUrl = url.toString();
      return {
        options: { databaseUrl },
        open: () => openStore({ databaseUrl }),
        openRaw: () => createPgExecutor(databaseUrl),
        async dispose() {
          const cleaner = new Client({ connectionString: adminUrl() });
          await cleaner.connect();
          await cleaner.query(`DROP SCHEMA ${schema} CASCADE`);
          await cleaner.end();
        },
      };
    },
  };
}
