import { randomBytes } from 'node:crypto';
import { createPgExecutor, openStore, type SqlExecutor } from '@terrarium/db';
import { postgresForTests, type PostgresForTests } from '@terrarium/db/testing';
import { afterAll, beforeAll } from 'vitest';
import { describeSqlRunPages } from './run-leaderboard.testkit';

// TEST_DATABASE_URL, else (outside CI only) a throwaway cluster; a schema of its own.
let server: PostgresForTests | undefined;
let admin: SqlExecutor | undefined;
const schema = `t_${randomBytes(6).toString('hex')}`;
beforeAll(async () => {
  server = await postgresForTests();
  admin = await createPgExecutor(server.url);
  await admin.query(`CREATE SCHEMA ${schema}`);
}, 120_000);
afterAll(async () => {
  await admin?.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
  await admin?.close();
  await server?.stop();
});

describeSqlRunPages('PostgreSQL', () => {
  if (!server) throw new Error('no PostgreSQL server for the suite (see the beforeAll error)');
  const url = new URL(server.url);
  url.searchParams.set('options', `-c search_path=${schema}`);
  return openStore({ databaseUrl: url.toString() });
});
