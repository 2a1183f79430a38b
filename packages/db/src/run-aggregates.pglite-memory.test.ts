import type { ItemScore, RunPrediction } from '@terrarium/schema';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SqlExecutor } from './executor';
import { RECOUNT_ALL_RUNS } from './migrations/013-run-aggregates';
import { openOnExecutor } from './open-store';
import { createPgliteExecutor } from './pglite-executor';
import type { RecordedUnit, Store } from './store';
import { buildBenchItem, buildBenchManifest } from './testing';

// 40 items over three tasks, every fifth in `dev`; item n has n % 7 turns of history at turn
// index n % 9 (so history length and turn index differ), used 37n tokens and took 0.5 + 3n ms.
const ITEMS = Array.from({ length: 40 }, (_, n) => {
  const turn = buildBenchItem(n).history[0];
  return buildBenchItem(n, {
    task: ['a', 'b', 'c'][n % 3] ?? 'a',
    split: n % 5 === 4 ? 'dev' : 'test',
    turnIndex: n % 9,
    history: turn === undefined ? [] : Array.from({ length: n % 7 }, () => turn),
  });
});

function unit(runId: string, n: number, sim: string): RecordedUnit {
  const itemId = `item-${n}`;
  const failed = sim === 'retrieval' && n % 11 === 3;
  const prediction: RunPrediction = {
    runId,
    itemId,
    sim,
    observation: failed ? null : { kind: 'text', content: `predicted ${n}`, callId: null },
    reasoning: null,
    provenance: { backend: sim },
    latencyMs: 0.5 + 3 * n,
    usage: { inputTokens: 30 * n, outputTokens: 7 * n, costUsd: 0 },
    error: failed ? 'endpoint down' : null,
  };
  const score = (metric: string, value: number | null): ItemScore => ({
    itemId,
    sim,
    source: 'rule',
    metric,
    value,
    detail: null,
  });
  // Decimals that do not add up exactly in floating point, and a metric that sometimes does not apply.
  const scores = failed
    ? []
    : [score('content', ((n * 37) % 100) / 100), score('json', n % 4 === 0 ? null : (n % 3) / 3)];
  return { prediction, scores };
}

/** Both tables of one run, in a fixed order. */
async function aggregatesOf(executor: SqlExecutor, runId: string) {
  return {
    totals: await executor.query(
      `SELECT sim, source, metric, task, n, grid_sum, nulls FROM run_score_totals
       WHERE run_id = $1::bigint ORDER BY sim, source, metric, task`,
      [runId],
    ),
    slices: await executor.query(
      `SELECT source, metric, sim, axis, x, rows, n, grid_sum FROM run_score_slices
       WHERE run_id = $1::bigint ORDER BY source, metric, sim, axis, x`,
      [runId],
    ),
  };
}

async function recount(executor: SqlExecutor): Promise<void> {
  await executor.exec('DELETE FROM run_score_totals; DELETE FROM run_score_slices;');
  await executor.exec(RECOUNT_ALL_RUNS);
}

describe('run aggregates: what the writer adds up equals a count over the stored scores', () => {
  let executor: SqlExecutor;
  let store: Store;
  let runId: string;
  beforeAll(async () => {
    executor = await createPgliteExecutor(undefined);
    store = await openOnExecutor(executor);
    await store.createBench(buildBenchManifest('aggregates', ITEMS), ITEMS);
    runId = (
      await store.createBenchRun({
        bench: 'aggregates',
        sims: ['replay', 'retrieval'],
        judge: null,
        mode: { kind: 'open' },
        split: 'test',
      })
    ).id;
  });
  afterAll(async () => {
    await store.close();
  });

  it('adds batch by batch what migration 013 counts at once', async () => {
    const units = ['replay', 'retrieval'].flatMap((sim) =>
      ITEMS.filter((item) => item.split === 'test').map((item) =>
        unit(runId, Number(item.id.slice(5)), sim),
      ),
    );
    for (let start = 0; start < units.length; start += 7) {
      await store.recordPredictions(units.slice(start, start + 7));
    }
    const written = await aggregatesOf(executor, runId);
    // Not a trivial case: every axis is there, nulls and cost buckets too.
    expect(new Set(written.slices.map((row) => row['axis']))).toEqual(
      new Set(['bin', 'turn', 'history', 'history-shift', 'tokens', 'latency']),
    );
    expect(written.totals.some((row) => row['nulls'] !== 0)).toBe(true);
    await recount(executor);
    expect(await aggregatesOf(executor, runId)).toEqual(written);
  });

  it('takes replaced scores out and adds the new ones, as a recount would', async () => {
    const rejudged: ItemScore[] = [0, 1, 2, 3, 5, 6].map((n) => ({
      itemId: `item-${n}`,
      sim: 'replay',
      source: n % 2 === 0 ? 'rule' : 'judge',
      metric: n % 2 === 0 ? 'json' : 'overall',
      value: n === 3 ? null : 0.1 * n,
      detail: null,
    }));
    expect(await store.addScores(runId, rejudged)).toBe(6);
    const updated = await aggregatesOf(executor, runId);
    await recount(executor);
    expect(await aggregatesOf(executor, runId)).toEqual(updated);
  });
});
