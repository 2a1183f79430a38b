import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SqlExecutor } from '../executor';
import { runMigrations } from '../migrate';
import { openOnExecutor } from '../open-store';
import { createPgliteExecutor } from '../pglite-executor';
import type { Store } from '../store';
import { buildBenchItem, buildBenchManifest } from '../testing';
import { MIGRATIONS } from './index';

const UNPRICED = 'openai:http://127.0.0.1:8000/v1#wm';
const PRICED = 'openai:http://127.0.0.1:8001/v1#wm';
const ITEMS = [0, 1].map((n) => buildBenchItem(n));

/** A finished run as migration 17's schema stored it: every cost a number, unknown ones 0. */
async function runAsBefore(
  executor: SqlExecutor,
  sims: string[],
  predictions: { item: string; sim: string; cost: number; error: string | null }[],
): Promise<string> {
  const [run] = await executor.query(
    `INSERT INTO bench_runs (bench_id, sims, mode, split, status, total, done, failed, cost_usd)
     SELECT id, $1::jsonb, '{"kind":"open"}', 'test', 'done', $2, $3, $4, $5 FROM benches
     RETURNING id::text AS id`,
    [
      JSON.stringify(sims),
      predictions.length,
      predictions.filter((p) => p.error === null).length,
      predictions.filter((p) => p.error !== null).length,
      predictions.reduce((sum, p) => sum + p.cost, 0),
    ],
  );
  const runId = String(run?.['id']);
  for (const p of predictions) {
    await executor.query(
      `INSERT INTO run_predictions (run_id, item_id, sim, provenance, latency_ms, input_tokens,
         output_tokens, cost_usd, error)
       VALUES ($1::bigint, $2, $3, '{}', 10, 100, 20, $4, $5)`,
      [runId, p.item, p.sim, p.cost, p.error],
    );
  }
  return runId;
}

describe('migration 18 (a cost not known is not $0.00)', () => {
  let executor: SqlExecutor;
  let store: Store;
  let unpricedRun = '';
  let pricedRun = '';

  beforeAll(async () => {
    executor = await createPgliteExecutor(undefined);
    await runMigrations(
      executor,
      MIGRATIONS.filter((migration) => migration.version < 18),
    );
    // The bench row alone: the runs' predictions name items by id.
    await executor.query(
      `INSERT INTO benches (name, version, manifest) VALUES ('costs', 1, $1::jsonb)`,
      [JSON.stringify({ ...buildBenchManifest('costs', ITEMS), version: 1 })],
    );
    unpricedRun = await runAsBefore(
      executor,
      ['replay', UNPRICED],
      [
        { item: 'item-0', sim: 'replay', cost: 0, error: null },
        { item: 'item-0', sim: UNPRICED, cost: 0, error: null },
        { item: 'item-1', sim: UNPRICED, cost: 0, error: 'HTTP 500' },
      ],
    );
    pricedRun = await runAsBefore(
      executor,
      [PRICED],
      [
        { item: 'item-0', sim: PRICED, cost: 0.25, error: null },
        { item: 'item-1', sim: PRICED, cost: 0, error: 'HTTP 500' },
      ],
    );
    await runMigrations(executor, MIGRATIONS);
    store = await openOnExecutor(executor);
  });
  afterAll(async () => {
    await store.close();
  });

  it("makes an unpriced endpoint's stored $0 unknown, and keeps what was priced or free", async () => {
    // The run row as migration 17 stored it counted no tokens.
    expect((await store.getBenchRun(unpricedRun))?.usage).toEqual({
      inputTokens: 0,
      outputTokens: 0,
      costUsd: null,
      // One unit's cost is not known (the failed one cost nothing), and nothing else was priced.
      unpriced: { units: 1, knownUsd: 0 },
    });
    expect((await store.getBenchRun(pricedRun))?.usage.costUsd).toBe(0.25);
    const rows = (await store.listPredictions(unpricedRun, { offset: 0, limit: 10 })).rows;
    const costs = rows
      .map((row) => [row.sim, row.itemId, row.usage.costUsd])
      .toSorted((a, b) => `${a[0]} ${a[1]}`.localeCompare(`${b[0]} ${b[1]}`));
    expect(costs).toEqual([
      [UNPRICED, 'item-0', null],
      // A failed request cost nothing: it stays 0.
      [UNPRICED, 'item-1', 0],
      ['replay', 'item-0', 0],
    ]);
  });
});
