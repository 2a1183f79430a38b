import { isDeepStrictEqual } from 'node:util';
import type { Store } from '@terrarium/db';
import { openMemoryStore } from '@terrarium/db/test-store';
import type { BenchRun } from '@terrarium/schema';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { collectDataFiles, readDataFile } from '../import/collect-files';
import { importFiles } from '../import/import-files';
import { TAU2_RETAIL } from '../testing/sample-files';
import { PROGRAM_PRINCIPAL, type ApiContext } from '../trpc';
import {
  buildBenchFromDatasets,
  cellItems,
  recomputeItem,
  startRun,
  watchRun,
} from './bench-service';
import { startBenchWorkers, type BenchWorkers } from './bench-workers';

const CONTENT = { source: 'rule', metric: 'content' } as const;
// The first lookup of a user in tau2 retail: retrieval answers with another trajectory's user.
const WORST = '01d2261dfe240919ecad5a1614bc';

describe('one code path per (bench item, simulator) on tau2 retail', () => {
  let store: Store;
  let workers: BenchWorkers;
  let ctx: ApiContext;
  let run: BenchRun;

  beforeAll(async () => {
    store = await openMemoryStore();
    const files = (await collectDataFiles([TAU2_RETAIL])).map(readDataFile);
    await importFiles(store, files, { dataset: 'retail' });
    workers = await startBenchWorkers(store, { concurrency: 2, queue: { schema: 'pgboss' } });
    ctx = { store, benchRunner: workers.runner, principal: PROGRAM_PRINCIPAL };
    await buildBenchFromDatasets(ctx, {
      name: 'retail',
      datasets: ['retail'],
      sampling: { kind: 'agentworld' },
      seed: 0,
      devFraction: 0,
    });
    const started = await startRun(ctx, {
      bench: 'retail',
      sims: ['replay', 'retrieval'],
      judge: null,
      mode: { kind: 'open' },
      split: 'test',
    });
    let last: BenchRun | undefined;
    for await (const update of watchRun(ctx, started.id, undefined)) last = update;
    if (last === undefined) throw new Error('watchRun yielded nothing');
    run = last;
  }, 180_000);
  afterAll(async () => {
    await workers?.stop();
    await store?.close();
  });

  it('recomputes the drill-down item with the same prediction text and scores', async () => {
    expect(run.status).toBe('done');
    const page = await cellItems(ctx, {
      runId: run.id,
      sim: 'retrieval',
      task: 'overall',
      score: CONTENT,
      offset: 0,
      limit: 1,
    });
    const shown = page.rows[0];
    expect(shown).toMatchObject({ itemId: WORST, predicted: { content: 'james_kovacs_9247' } });
    const again = await recomputeItem(ctx, { runId: run.id, itemId: WORST, sim: 'retrieval' });
    expect(again.recomputed.predicted.content).toBe('james_kovacs_9247');
    expect(again.recomputed.predicted).toEqual(shown?.predicted);
    expect(again.recomputed.scores).toEqual(shown?.scores);
    expect(again.stored).toEqual({ predicted: shown?.predicted, scores: shown?.scores });
    expect(again.recomputed.scores['rule:content']).toBe(0);
    // Retrieval is local: a true $0.00, and no judge was asked.
    expect(again.recomputed.usage).toEqual({ inputTokens: 0, outputTokens: 0, costUsd: 0 });
    expect(again.recomputed.judgeUsage).toBeNull();
    // Neither observation is a failure, so error agreement does not apply (it is not a free 100).
    expect(again.recomputed.scores['rule:error-agreement']).toBeNull();
  });

  it('agrees with the run on every retrieval and replay item (leave-one-out included)', async () => {
    for (const sim of ['retrieval', 'replay']) {
      const page = await cellItems(ctx, {
        runId: run.id,
        sim,
        task: 'overall',
        score: CONTENT,
        offset: 0,
        limit: 500,
      });
      // Measured: tau2 retail, agentworld sampling.
      expect(page.total).toBe(194);
      const differing: string[] = [];
      for (const row of page.rows) {
        const again = await recomputeItem(ctx, { runId: run.id, itemId: row.itemId, sim });
        const same =
          isDeepStrictEqual(again.recomputed.predicted, row.predicted) &&
          isDeepStrictEqual(again.recomputed.scores, row.scores);
        if (!same) differing.push(row.itemId);
      }
      expect(differing).toEqual([]);
    }
  }, 120_000);

  it('refuses a simulator the run did not use, naming the field', async () => {
    await expect(
      recomputeItem(ctx, { runId: run.id, itemId: WORST, sim: 'openai:http://127.0.0.1:9/v1#m' }),
    ).rejects.toThrow('sim: run');
  });
});
