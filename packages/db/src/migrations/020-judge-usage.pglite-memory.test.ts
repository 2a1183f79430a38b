import type { ItemScore } from '@terrarium/schema';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SqlExecutor } from '../executor';
import { runMigrations } from '../migrate';
import { openOnExecutor } from '../open-store';
import { createPgliteExecutor } from '../pglite-executor';
import type { Store } from '../store';
import { buildBenchItem, buildBenchManifest } from '../testing';
import { MIGRATIONS } from './index';

const JUDGE = {
  spec: 'openai:http://127.0.0.1:8000/v1#judge',
  temperature: 0,
  repeats: 1,
  mode: 'score',
};
const ITEMS = [0, 1].map((n) => buildBenchItem(n));

/** A finished replay run as migration 19's schema stored it, judged or not. */
async function runAsBefore(executor: SqlExecutor, judged: boolean): Promise<string> {
  const [run] = await executor.query(
    `INSERT INTO bench_runs (bench_id, sims, judge, mode, split, status, total, done)
     SELECT id, '["replay"]', $1::jsonb, '{"kind":"open"}', 'test', 'done', 2, 2 FROM benches
     RETURNING id::text AS id`,
    [judged ? JSON.stringify(JUDGE) : null],
  );
  const runId = String(run?.['id']);
  for (const item of ITEMS) {
    await executor.query(
      `INSERT INTO run_predictions (run_id, item_id, sim, provenance, latency_ms, input_tokens,
         output_tokens, cost_usd, error)
       VALUES ($1::bigint, $2, 'replay', '{}', 1, 0, 0, 0, NULL)`,
      [runId, item.id],
    );
  }
  return runId;
}

describe('migration 20 (what a run’s judge cost)', () => {
  let executor: SqlExecutor;
  let store: Store;
  let judgedRun = '';
  let plainRun = '';

  beforeAll(async () => {
    executor = await createPgliteExecutor(undefined);
    await runMigrations(
      executor,
      MIGRATIONS.filter((migration) => migration.version < 20),
    );
    await executor.query(
      `INSERT INTO benches (name, version, manifest) VALUES ('judged', 1, $1::jsonb)`,
      [JSON.stringify({ ...buildBenchManifest('judged', ITEMS), version: 1 })],
    );
    judgedRun = await runAsBefore(executor, true);
    plainRun = await runAsBefore(executor, false);
    await runMigrations(executor, MIGRATIONS);
    store = await openOnExecutor(executor);
  });
  afterAll(async () => {
    await store.close();
  });

  it('leaves an older judged run’s judge calls unrecorded, not free, and a run without a judge at 0', async () => {
    expect((await store.getBenchRun(judgedRun))?.judgeUsage).toBeNull();
    expect((await store.getBenchRun(plainRun))?.judgeUsage).toEqual({
      inputTokens: 0,
      outputTokens: 0,
      costUsd: 0,
    });
    const { rows } = await store.listPredictions(judgedRun, { offset: 0, limit: 10 });
    expect(rows.map((row) => row.judgeUsage)).toEqual([undefined, undefined]);
  });

  it('keeps the older run unrecorded when units are added to it later', async () => {
    const [item] = ITEMS;
    if (item === undefined) throw new Error('no item');
    const judgeScore: ItemScore = {
      itemId: item.id,
      sim: 'replay',
      source: 'judge',
      metric: 'overall',
      value: 1,
      detail: null,
    };
    expect(await store.retryFailedUnits(judgedRun)).toBe(0);
    await store.addScores(judgedRun, [judgeScore], {
      itemId: item.id,
      sim: 'replay',
      usage: { inputTokens: 10, outputTokens: 5, costUsd: 0.01 },
    });
    // A sum with what was never recorded is still not known.
    expect((await store.getBenchRun(judgedRun))?.judgeUsage).toBeNull();
    await store.addScores(plainRun, [judgeScore], {
      itemId: item.id,
      sim: 'replay',
      usage: { inputTokens: 10, outputTokens: 5, costUsd: null },
    });
    expect((await store.getBenchRun(plainRun))?.judgeUsage).toEqual({
      inputTokens: 10,
      outputTokens: 5,
      costUsd: null,
      unpriced: { units: 1, knownUsd: 0 },
    });
    // The unit it was spent on says so, as the run's results line shows it.
    const { rows } = await store.listPredictions(plainRun, { offset: 0, limit: 10 });
    expect(rows.map((row) => [row.itemId, row.judgeUsage])).toEqual([
      [item.id, { inputTokens: 10, outputTokens: 5, costUsd: null }],
      ['item-1', undefined],
    ]);
  });
});
