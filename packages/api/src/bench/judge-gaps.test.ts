import type { Store } from '@terrarium/db';
import { openMemoryStore } from '@terrarium/db/test-store';
import type { BenchRun } from '@terrarium/schema';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { collectDataFiles, readDataFile } from '../import/collect-files';
import { importFiles } from '../import/import-files';
import { TAU2_RETAIL } from '../testing/sample-files';
import { PROGRAM_PRINCIPAL, type ApiContext } from '../trpc';
import { buildBenchFromDatasets, leaderboard, startRun, watchRun } from './bench-service';
import { startBenchWorkers, type BenchWorkers } from './bench-workers';
import { startRecordingEndpoint, type RecordingEndpoint } from './recording-endpoint.testkit';

const ITEMS = 12;

describe('a judge whose verdicts cannot be read (tau2 retail, a real endpoint over HTTP)', () => {
  let store: Store;
  let workers: BenchWorkers;
  let ctx: ApiContext;
  let endpoint: RecordingEndpoint;

  async function runWithJudge(model: string): Promise<BenchRun> {
    const started = await startRun(ctx, {
      bench: 'judged',
      sims: ['replay'],
      judge: { spec: `openai:${endpoint.url}#${model}`, temperature: 0, repeats: 1, mode: 'score' },
      mode: { kind: 'open' },
      split: 'test',
    });
    let last = started;
    for await (const run of watchRun(ctx, started.id, undefined)) last = run;
    return last;
  }

  beforeAll(async () => {
    store = await openMemoryStore();
    const files = (await collectDataFiles([TAU2_RETAIL])).map(readDataFile);
    await importFiles(store, files, { dataset: 'retail' });
    workers = await startBenchWorkers(store, { concurrency: 1, queue: { schema: 'pgboss' } });
    ctx = { store, benchRunner: workers.runner, principal: PROGRAM_PRINCIPAL };
    await buildBenchFromDatasets(ctx, {
      name: 'judged',
      datasets: ['retail'],
      sampling: { kind: 'agentworld' },
      seed: 0,
      devFraction: 0,
      maxItemsPerTask: ITEMS,
    });
    endpoint = await startRecordingEndpoint();
  }, 180_000);
  afterAll(async () => {
    await workers?.stop();
    await endpoint?.close();
    await store?.close();
  });

  it('names the gap on the leaderboard, though no prediction failed', async () => {
    // Model `wm` answers as a world model: an observation, no scores.
    const run = await runWithJudge('wm');
    expect(run).toMatchObject({ status: 'done', done: ITEMS, failed: 0 });
    const board = await leaderboard(ctx, run.id, 0);
    expect(board.failures).toEqual([]);
    expect(board.judgeGaps).toEqual([
      {
        sim: 'replay',
        metric: 'overall',
        items: ITEMS,
        judged: ITEMS,
        example: 'no JSON object with scores found',
      },
    ]);
    const overall = board.cells.find(
      (cell) => cell.source === 'judge' && cell.metric === 'overall' && cell.task === 'overall',
    );
    expect(overall).toMatchObject({ n: 0, missing: ITEMS });
  }, 120_000);

  it('says nothing when every verdict was read', async () => {
    const run = await runWithJudge('judge');
    expect(run).toMatchObject({ status: 'done', done: ITEMS, failed: 0 });
    expect((await leaderboard(ctx, run.id, 0)).judgeGaps).toEqual([]);
  }, 120_000);
});
