import { finished } from 'node:stream/promises';
import { Pool, type PoolClient } from 'pg';
import { from as copyFromStdin } from 'pg-copy-streams';
import type { Queryable, Row, SqlExecutor } from './executor';

async function copyThrough(client: PoolClient, target: string, data: Uint8Array): Promise<void> {
  const stream = client.query(copyFromStdin(`COPY ${target} FROM STDIN WITH (FORMAT binary)`));
  stream.end(data);
  await finished(stream);
}

function queryableOf(client: Pool | PoolClient): Queryable {
  return {
    async query(sql, params) {
      const result = await client.query<Row>(sql, params ? [...params] : []);
      return result.rows;
    },
    async exec(sql) {
      await client.query(sql);
    },
    async copyFrom(target, data) {
      if (!(client instanceof Pool)) return copyThrough(client, target, data);
      const connection = await client.connect();
      try {
        await copyThrough(connection, target, data);
      } finally {
        connection.release();
      }
    },
  };
}

function isRowsHolder(value: unknown): value is { rows: Row[] } {
  return (
    typeof value === 'object' && value !== null && 'rows' in value && Array.isArray(value.rows)
  );
}

/** PostgreSQL through a small pool. `connectionString` may carry `?options=-c search_path=…`. */
export async function createPgExecutor(connectionString: string): Promise<SqlExecutor> {
  const pool = new Pool({ connectionString, max: 6 });
  // An idle client that loses its server emits 'error' on the pool; without a listener Node exits.
  pool.on('error', () => {});
  // Fail on open, with the driver's message, rather than on the first query.
  const probe = await pool.connect();
  probe.release();
  return {
    backend: 'postgres',
    ...queryableOf(pool),
    async transaction(work) {
      const client = await pool.connect();
      try {
        await client.query('BEGIN');
        const result = await work(queryableOf(client));
        await client.query('COMMIT');
        return result;
      } catch (error) {
        await client.query('ROLLBACK').catch(() => {});
        throw error;
      } finally {
        client.release();
      }
    },
    async reserveSession() {
      const client = await pool.connect();
      return { ...queryableOf(client), release: async () => client.release() };
    },
    async runScript(sql, params) {
      // Without parameters pg uses the simple protocol, which runs several statements and answers
      // one result per statement.
      const result = await pool.query<Row>(sql, params ? [...params] : undefined);
      const results: unknown = result;
      const last = Array.isArray(results) ? results.at(-1) : result;
      return { rows: isRowsHolder(last) ? last.rows : [] };
    },
    close: () => pool.end(),
  };
}
