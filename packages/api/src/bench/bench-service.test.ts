import { createServer } from 'node:net';
import { openStore, type Store } from '@terrarium/db';
import type { BenchManifest, BenchRun, LeaderboardCell } from '@terrarium/schema';
import { TRPCError } from '@trpc/server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { collectDataFiles, readDataFile } from '../import/collect-files';
import { importFiles } from '../import/import-files';
import { TAU2_AIRLINE, TAU2_RETAIL } from '../testing/sample-files';
import type { ApiContext } from '../trpc';
import {
  benchItems,
  buildBenchFromDatasets,
  cancelRun,
  cellItems,
  compareRuns,
  leaderboard,
  report,
  scorePoints,
  startRun,
  watchRun,
  type StartRunInput,
} from './bench-service';
import { startBenchWorkers, type BenchWorkers } from './bench-workers';

const CONTENT = { source: 'rule', metric: 'content' } as const;
const EXACT = { source: 'rule', metric: 'exact-match' } as const;
// Measured on tau2 retail (40 trajectories, agentworld sampling).
const RETAIL_ITEMS = 194;

async function importInto(store: Store, file: string, dataset: string): Promise<void> {
  const files = (await collectDataFiles([file])).map(readDataFile);
  await importFiles(store, files, { dataset });
}

/** A 127.0.0.1 port that nothing listens on: bound once, then released. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  if (address === null || typeof address === 'string') throw new Error('no port');
  return address.port;
}

function runInput(sims: string[]): StartRunInput {
  return { bench: 'retail', sims, judge: null, mode: { kind: 'open' }, split: 'test' };
}

function cell(cells: LeaderboardCell[], sim: string, metric: string, task = 'overall') {
  const found = cells.find(
    (entry) =>
      entry.sim === sim &&
      entry.task === task &&
      entry.source === 'rule' &&
      entry.metric === metric,
  );
  if (found === undefined) throw new Error(`no cell ${sim} ${task} ${metric}`);
  return found;
}

describe('bench service on tau2 retail', () => {
  let store: Store;
  let workers: BenchWorkers;
  let ctx: ApiContext;
  let first: BenchManifest;
  let main: BenchRun;
  const seen: BenchRun[] = [];

  async function runToEnd(sims: string[]): Promise<{ run: BenchRun; seen: BenchRun[] }> {
    const started = await startRun(ctx, runInput(sims));
    const updates: BenchRun[] = [];
    for await (const run of watchRun(ctx, started.id, undefined)) updates.push(run);
    const last = updates.at(-1);
    if (last === undefined) throw new Error('watchRun yielded nothing');
    return { run: last, seen: updates };
  }

  beforeAll(async () => {
    store = await openStore({ memory: true });
    await importInto(store, TAU2_RETAIL, 'retail');
    workers = await startBenchWorkers(store, {
      concurrency: 2,
      anyOnnxPath: true,
      queue: { schema: 'pgboss' },
    });
    ctx = { store, benchRunner: workers.runner };
    first = await buildBenchFromDatasets(ctx, {
      name: 'retail',
      datasets: ['retail'],
      sampling: { kind: 'agentworld' },
      seed: 0,
      devFraction: 0,
    });
    const result = await runToEnd(['replay', 'retrieval']);
    main = result.run;
    seen.push(...result.seen);
  }, 180_000);
  afterAll(async () => {
    await workers?.stop();
    await store?.close();
  });

  it('builds a frozen, versioned bench', async () => {
    expect(first.version).toBe(1);
    expect(first.itemCount).toBe(RETAIL_ITEMS);
    console.log(JSON.stringify({ ...first, createdAt: null }));
    await importInto(store, TAU2_AIRLINE, 'retail');
    const second = await buildBenchFromDatasets(ctx, {
      name: 'retail',
      datasets: ['retail'],
      sampling: { kind: 'agentworld' },
      seed: 0,
      devFraction: 0,
    });
    console.log(JSON.stringify({ ...second, createdAt: null }));
    expect(second.version).toBe(2);
    const v1 = await benchItems(ctx, { name: 'retail', version: 1, offset: 0, limit: 500 });
    expect(v1.total).toBe(RETAIL_ITEMS);
    expect(v1.rows.every((item) => item.task === 'tau2-bench/retail')).toBe(true);
  });

  it('runs replay and retrieval to the end, streaming progress', () => {
    console.log(JSON.stringify(seen.map((run) => [run.status, run.done, run.failed, run.total])));
    expect(main.status).toBe('done');
    expect(main.total).toBe(RETAIL_ITEMS * 2);
    expect(main.done).toBe(main.total);
    expect(main.failed).toBe(0);
  });

  it('puts replay at 100 and retrieval below it on the leaderboard', async () => {
    const { cells } = await leaderboard(ctx, main.id, 0);
    const replay = cell(cells, 'replay', 'content');
    console.log(JSON.stringify(cells.filter((c) => c.task === 'overall' && c.source === 'rule')));
    expect(replay).toMatchObject({ mean: 100, n: RETAIL_ITEMS, missing: 0 });
    expect(cell(cells, 'replay', 'exact-match')).toMatchObject({
      mean: 100,
      n: RETAIL_ITEMS,
      missing: 0,
    });
    const retrieval = cell(cells, 'retrieval', 'content');
    expect(retrieval.n).toBe(RETAIL_ITEMS);
  });

  it('lists the items of a cell worst first', async () => {
    const page = await cellItems(ctx, {
      runId: main.id,
      sim: 'retrieval',
      task: 'overall',
      score: CONTENT,
      offset: 0,
      limit: 500,
    });
    expect(page.total).toBe(RETAIL_ITEMS);
    expect(page.rows).toHaveLength(RETAIL_ITEMS);
    const values = page.rows.map((row) => row.value ?? -1);
    expect(values).toEqual(values.toSorted((a, b) => a - b));
    console.log(JSON.stringify(page.rows.slice(0, 2)).slice(0, 2000));
  });

  it('gives one chart point per item and simulator', async () => {
    const points = await scorePoints(ctx, main.id, EXACT);
    expect(points).toHaveLength(RETAIL_ITEMS * 2);
  });

  it('compares two runs', async () => {
    const again = await runToEnd(['retrieval']);
    const comparison = await compareRuns(ctx, {
      before: main.id,
      after: again.run.id,
      score: CONTENT,
    });
    console.log(JSON.stringify(comparison).slice(0, 3000));
  });

  it('reports per simulator', async () => {
    const result = await report(ctx, main.id);
    console.log(JSON.stringify(result));
  });

  it('cancels a queued run', async () => {
    const enqueued: string[] = [];
    const idle: ApiContext = {
      store,
      benchRunner: { enqueue: async (id) => void enqueued.push(id) },
    };
    const queued = await startRun(idle, runInput(['replay']));
    expect(queued.status).toBe('queued');
    const canceled = await cancelRun(idle, queued.id);
    expect(canceled.status).toBe('canceled');
    expect(enqueued).toEqual([queued.id]);
  });

  it('refuses a run on an unknown bench, naming it', async () => {
    const error = await startRun(ctx, { ...runInput(['replay']), bench: 'nope' }).catch(
      (caught: unknown) => caught,
    );
    expect(error).toBeInstanceOf(TRPCError);
    if (!(error instanceof TRPCError)) return;
    expect(error.code).toBe('NOT_FOUND');
    expect(error.message).toBe('bench: no bench "nope" (benches: retail)');
  });

  it('counts every unit of an unreachable endpoint as failed', async () => {
    const sim = `openai:http://127.0.0.1:${await closedPort()}/v1#m`;
    const { run } = await runToEnd([sim]);
    console.log(JSON.stringify(run));
    const result = await report(ctx, run.id);
    console.log(JSON.stringify(result));
  }, 120_000);
});
