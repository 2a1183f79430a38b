import { PGlite, type Transaction } from '@electric-sql/pglite';
import type { Queryable, Row, SqlExecutor } from './executor';

function queryableOf(db: PGlite | Transaction): Queryable {
  return {
    async query(sql, params) {
      const result = await db.query<Row>(sql, params ? [...params] : []);
      return result.rows;
    },
    async exec(sql) {
      await db.exec(sql);
    },
  };
}

/** PGlite on disk in `dataDir`, or in memory when `dataDir` is undefined. */
export async function createPgliteExecutor(dataDir: string | undefined): Promise<SqlExecutor> {
  const db = await PGlite.create(dataDir);
  const base = queryableOf(db);
  return {
    backend: 'pglite',
    ...base,
    transaction: (work) => db.transaction((tx) => work(queryableOf(tx))),
    async reserveSession() {
      return { ...base, release: async () => {} };
    },
    async runScript(sql, params) {
      if (params && params.length > 0) return { rows: await base.query(sql, params) };
      try {
        const results = await db.exec(sql);
        return { rows: results.at(-1)?.rows ?? [] };
      } catch (error) {
        // A script that opened its own transaction and failed leaves the one embedded connection in
        // an aborted transaction, which would fail every later query; end it.
        if (/^\s*BEGIN\b/i.test(sql)) await db.exec('ROLLBACK').catch(() => {});
        throw error;
      }
    },
    close: () => db.close(),
  };
}
