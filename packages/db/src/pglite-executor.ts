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
    close: () => db.close(),
  };
}
