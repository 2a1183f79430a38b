import { inflateRawSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SqlExecutor } from './executor';
import { openOnExecutor } from './open-store';
import { createPgliteExecutor } from './pglite-executor';
import type { Store } from './store';
import { retailTrajectory } from './testing';

// Migration 007 moved source records from a `json` column to deflated bytes; both must read back.
describe('source records (PGlite in memory)', () => {
  let executor: SqlExecutor;
  let store: Store;
  let trajectoryId = '';
  const original = retailTrajectory(0);

  beforeAll(async () => {
    executor = await createPgliteExecutor(undefined);
    store = await openOnExecutor(executor);
    const batch = await store.beginImport('records');
    await batch.addTrajectories([original]);
    await batch.commit();
    const page = await store.listTrajectories({}, { offset: 0, limit: 1 });
    trajectoryId = page.rows[0]?.id ?? '';
  });

  afterAll(async () => {
    await store.close();
  });

  it('stores a new record once, as the deflated JSON text of the record in its key order', async () => {
    const [row] = await executor.query(
      `SELECT source_record, source_record_deflated FROM trajectories WHERE id = $1::bigint`,
      [trajectoryId],
    );
    expect(row?.['source_record']).toBeNull();
    const deflated = row?.['source_record_deflated'];
    if (!(deflated instanceof Uint8Array)) throw new Error('expected bytea');
    expect(inflateRawSync(deflated).toString('utf8')).toBe(
      '{"task_id":"0","trial":0,"reward_info":{"reward":1},"messages":[]}',
    );
  });

  it('reads a record written before migration 007 from its json column', async () => {
    await executor.query(
      `UPDATE trajectories SET source_record = '{"b":1,"a":[true,null]}'::json,
         source_record_deflated = NULL WHERE id = $1::bigint`,
      [trajectoryId],
    );
    const source = await store.getSourceRecord(trajectoryId);
    expect(source).toEqual({
      file: original.source.file,
      line: original.source.line,
      record: { b: 1, a: [true, null] },
    });
    expect(JSON.stringify(source?.record)).toBe('{"b":1,"a":[true,null]}');
  });

  it('refuses a row with neither form of the record', async () => {
    await expect(
      executor.query(
        `UPDATE trajectories SET source_record = NULL, source_record_deflated = NULL
         WHERE id = $1::bigint`,
        [trajectoryId],
      ),
    ).rejects.toThrow(/trajectories_source_record_present/);
  });
});
