import { randomBytes } from 'node:crypto';
import { createPgExecutor, openStore, type SqlExecutor, type Store } from '@terrarium/db';
import { postgresForTests, type PostgresForTests } from '@terrarium/db/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  TAU2_AIRLINE,
  TAU2_RETAIL,
  TAU2_TELECOM,
  TAU_BENCH_AIRLINE,
} from '../testing/sample-files';
import { collectDataFiles, readDataFile } from './collect-files';
import { importFiles } from './import-files';

// TEST_DATABASE_URL, else (outside CI only) a throwaway cluster; a schema of its own.
let server: PostgresForTests | undefined;
let admin: SqlExecutor | undefined;
let store: Store | undefined;
const schema = `t_${randomBytes(6).toString('hex')}`;
beforeAll(async () => {
  server = await postgresForTests();
  admin = await createPgExecutor(server.url);
  await admin.query(`CREATE SCHEMA ${schema}`);
  const url = new URL(server.url);
  url.searchParams.set('options', `-c search_path=${schema}`);
  store = await openStore({ databaseUrl: url.toString() });
}, 120_000);
afterAll(async () => {
  await store?.close();
  await admin?.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
  await admin?.close();
  await server?.stop();
});

describe('importFiles into PostgreSQL', () => {
  // Several 2 MB groups written on parallel connections (import-batch.ts): every group lands once,
  // in one dataset, searchable, and no trajectory is split from its steps.
  it('writes groups on parallel connections into one complete, searchable dataset', async () => {
    if (!store) throw new Error('no store (see the beforeAll error)');
    const files = (
      await collectDataFiles([TAU2_RETAIL, TAU2_TELECOM, TAU2_AIRLINE, TAU_BENCH_AIRLINE])
    ).map(readDataFile);
    const report = await importFiles(store, files, { dataset: 'parallel' });
    expect(report).toMatchObject({ trajectories: 300, transitions: 2300, quarantined: 0 });
    const [dataset] = await store.listDatasets();
    expect(dataset).toMatchObject({ name: 'parallel', trajectories: 300, transitions: 2300 });
    const all = await store.listTrajectories({}, { offset: 0, limit: 1000 });
    expect(all.total).toBe(300);
    expect(new Set(all.rows.map((row) => row.externalId)).size).toBe(300);
    const windows = await Promise.all(all.rows.map((row) => store?.getSteps(row.id, 0, 1000)));
    expect(windows.map((window) => window?.total)).toEqual(all.rows.map((row) => row.stepCount));
    // Every trajectory that calls the tool is found by its name, through the GIN index.
    const calling = all.rows.filter((_row, position) =>
      windows[position]?.steps.some(
        (step) => step.action.type === 'tool_call' && step.action.name === 'get_user_details',
      ),
    );
    const found = await store.listTrajectories(
      { search: 'get_user_details' },
      { offset: 0, limit: 1000 },
    );
    expect(calling).toHaveLength(174);
    expect(found.rows.map((row) => row.id)).toEqual(calling.map((row) => row.id));
  }, 300_000);
});
