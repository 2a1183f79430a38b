import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from 'pg';
import type { SqlExecutor } from '../executor';
import { PGLITE_SUBDIR } from '../open-store';
import { createPgExecutor } from '../pg-executor';
import { createPgliteExecutor } from '../pglite-executor';
import type { StoreOptions } from '../store';

/** A fresh, isolated place for one store: an in-memory PGlite, a temp folder, or a PG schema. */
export interface StoreLocation {
  options: StoreOptions;
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
      openRaw: () => createPgliteExecutor(undefined),
      dispose: async () => {},
    };
  },
};

export const pgliteDiskHarness: StoreHarness = {
  name: 'PGlite on disk',
  persistent: true,
  async createLocation() {
    const dataDir = await mkdtemp(join(tmpdir(), 'terrarium-db-'));
    return {
      options: { dataDir },
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
