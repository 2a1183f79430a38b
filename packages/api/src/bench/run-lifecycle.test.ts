import type { Store } from '@terrarium/db';
import type { BenchRun, LeaderboardCell } from '@terrarium/schema';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createQueue, deleteQueue } from '../labels/label-service';
import { PROGRAM_PRINCIPAL, type ApiContext } from '../trpc';
import {
  getRun,
  leaderboard,
  listBenches,
  listRuns,
  startRun,
  watchRun,
  type StartRunInput,
} from './bench-service';
import { startRecordingEndpoint, type RecordingEndpoint } from './recording-endpoint.testkit';
import { openRetailBench } from './retail-bench.testkit';
import { cancelRun, deleteBench, deleteRun, resumeRun, retryFailedUnits } from './run-lifecycle';

// tau2 retail under AgentWorldBench sampling (bench-service.test.ts measures the same).
const RETAIL_ITEMS = 194;

async function refusal(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    () => {
      throw new Error('expected a refusal');
    },
    (caught: unknown) => caught,
  );
}

/** The overall cells, in a fixed order, without what differs between two runs of one bench. */
function overall(cells: readonly LeaderboardCell[]) {
  return cells
    .filter((cell) => cell.task === 'overall')
    .map(({ sim, source, metric, mean, n }) => ({ sim, source, metric, mean, n }))
    .toSorted((a, b) => `${a.source}:${a.metric}`.localeCompare(`${b.source}:${b.metric}`));
}

/** A run of the recording endpoint over the whole bench. */
function input(url: string): StartRunInput {
  return {
    bench: 'life',
    sims: [`openai:${url}#wm`],
    judge: null,
    mode: { kind: 'open' },
    split: 'test',
  };
}

describe('a run canceled, resumed and deleted (tau2 retail, a real endpoint over HTTP)', () => {
  let store: Store;
  let ctx: ApiContext;
  let close: () => Promise<void>;
  let endpoint: RecordingEndpoint;
  /** The leaderboard's overall cells of a run never stopped and never failed. */
  let uninterrupted: ReturnType<typeof overall> = [];

  async function untilEnd(runId: string): Promise<BenchRun> {
    let last = await getRun(ctx, runId);
    for await (const run of watchRun(ctx, runId, undefined)) last = run;
    return last;
  }

  beforeAll(async () => {
    // Answers 40 predictions, then holds the rest: the run is canceled part-way, for certain.
    endpoint = await startRecordingEndpoint({ holdAfter: 40 });
    // One model of the endpoint has a price ($2 and $1 per token, in and out), the other none.
    const pricing = new Map([
      [
        `openai:${endpoint.url}#wm-priced`,
        { inputPerMillion: 2_000_000, outputPerMillion: 1_000_000 },
      ],
    ]);
    ({ store, ctx, close } = await openRetailBench({ bench: 'life', concurrency: 1, pricing }));
  }, 180_000);
  afterAll(async () => {
    await endpoint?.close();
    await close?.();
  });

  it('resumes a canceled run where it stopped and ends with the scores of a run never stopped', async () => {
    const started = await startRun(ctx, input(endpoint.url));
    // Canceled with a request held: the first 40 are answered, the rest wait.
    await expect.poll(() => endpoint.bodies.length, { timeout: 60_000 }).toBeGreaterThan(40);
    const canceled = await cancelRun(ctx, started.id);
    expect(canceled.status).toBe('canceled');
    // Resumed only once the worker has seen the cancel and aborted its calls: a worker remembers
    // the runs it saw end, and a resumed run's units must not be abandoned for that memory.
    await expect.poll(() => endpoint.abandoned(), { timeout: 60_000 }).toBeGreaterThan(0);
    const recordedAtCancel = (await getRun(ctx, started.id)).done;
    expect(recordedAtCancel).toBeGreaterThan(0);
    expect(recordedAtCancel).toBeLessThanOrEqual(40);
    endpoint.release();

    const resumed = await resumeRun(ctx, started.id);
    expect(resumed.status).toBe('queued');
    const ended = await untilEnd(started.id);
    expect(ended).toMatchObject({ status: 'done', done: RETAIL_ITEMS, failed: 0, error: null });

    // An uninterrupted run of the same endpoint over the same bench.
    const whole = await untilEnd((await startRun(ctx, input(endpoint.url))).id);
    expect(whole).toMatchObject({ status: 'done', done: RETAIL_ITEMS, failed: 0 });
    const resumedBoard = await leaderboard(ctx, ended.id, 200);
    const wholeBoard = await leaderboard(ctx, whole.id, 200);
    uninterrupted = overall(wholeBoard.cells);
    expect(overall(resumedBoard.cells)).toEqual(uninterrupted);
    expect(overall(resumedBoard.cells).find((cell) => cell.metric === 'content')?.n).toBe(
      RETAIL_ITEMS,
    );
  }, 180_000);

  it('gives a run of an unpriced endpoint no cost, not $0.00, and a priced one its dollars', async () => {
    const run = await untilEnd(
      (
        await startRun(ctx, {
          ...input(endpoint.url),
          sims: [`openai:${endpoint.url}#wm`, `openai:${endpoint.url}#wm-priced`],
        })
      ).id,
    );
    // The endpoint reports 1 prompt and 1 completion token a request.
    expect(run).toMatchObject({ status: 'done', done: 2 * RETAIL_ITEMS, failed: 0 });
    // The unpriced model's units make the total unknown; the priced one's $3 each are known.
    expect(run.usage).toEqual({
      inputTokens: 2 * RETAIL_ITEMS,
      outputTokens: 2 * RETAIL_ITEMS,
      costUsd: null,
      unpriced: { units: RETAIL_ITEMS, knownUsd: 3 * RETAIL_ITEMS },
    });
    const predictions = await store.listPredictions(run.id, { offset: 0, limit: 1000 });
    const costs = new Map<string, Set<number | null | undefined>>();
    const expected = new Map<string, Set<number | null | undefined>>([
      [`openai:${endpoint.url}#wm`, new Set([null])],
      [`openai:${endpoint.url}#wm-priced`, new Set([3])],
    ]);
    for (const prediction of predictions.rows) {
      const seen = costs.get(prediction.sim) ?? new Set();
      seen.add(prediction.usage.costUsd);
      costs.set(prediction.sim, seen);
    }
    expect(costs).toEqual(expected);
  }, 180_000);

  it('refuses to resume a run that is not canceled', async () => {
    const [done] = (await listRuns(ctx, 'life')).filter((run) => run.status === 'done');
    if (done === undefined) throw new Error('no finished run');
    expect(await refusal(resumeRun(ctx, done.id))).toMatchObject({
      code: 'CONFLICT',
      message: `run ${done.id} is done: only a canceled run can be resumed`,
    });
  });

  it('predicts the failed units of a finished run again and ends as a run that never failed', async () => {
    const tooLong = "This model's maximum context length is 2048 tokens";
    // The endpoint answers 60 requests, then refuses the rest: a server started with too short a
    // context. Refusals are not retried, so those units end failed.
    endpoint.refuseWith(tooLong, 60);
    const failing = await untilEnd((await startRun(ctx, input(endpoint.url))).id);
    expect(failing).toMatchObject({ status: 'done', done: 60, failed: RETAIL_ITEMS - 60 });
    expect(await store.runFailures(failing.id)).toEqual([
      expect.objectContaining({
        failed: RETAIL_ITEMS - 60,
        example: expect.stringContaining(tooLong),
      }),
    ]);
    const requests = endpoint.bodies.length;

    // The server restarted with a longer context: only the failed units are predicted again.
    endpoint.refuseWith(null);
    const retried = await retryFailedUnits(ctx, failing.id);
    expect(retried).toMatchObject({ status: 'queued', done: 60, failed: 0, finishedAt: null });
    const ended = await untilEnd(failing.id);
    expect(ended).toMatchObject({ status: 'done', done: RETAIL_ITEMS, failed: 0, error: null });
    expect(endpoint.bodies.length - requests).toBe(RETAIL_ITEMS - 60);
    expect(await store.runFailures(failing.id)).toEqual([]);
    const board = await leaderboard(ctx, ended.id, 200);
    expect(overall(board.cells)).toEqual(uninterrupted);

    expect(await refusal(retryFailedUnits(ctx, ended.id))).toMatchObject({
      code: 'CONFLICT',
      message: `run ${ended.id}'s failed units cannot be retried: none failed`,
    });
  }, 180_000);

  it('keeps labels: a run or bench with a labeling queue is not deleted until the queue is', async () => {
    const [run] = await listRuns(ctx, 'life');
    if (run === undefined) throw new Error('no run');
    const queue = await createQueue(store, PROGRAM_PRINCIPAL, {
      name: 'spot check',
      runId: run.id,
      selection: { kind: 'random', count: 5, seed: 1 },
      labelsPerItem: 1,
      blind: true,
      leaseSeconds: 600,
    });
    const held = `labeling queue "spot check" (run ${run.id}, 0 labels) holds people's labels on it; delete the queue first (Labeling page) if they are no longer needed`;
    expect(await refusal(deleteRun(ctx, run.id))).toMatchObject({
      code: 'CONFLICT',
      message: `run ${run.id} cannot be deleted: ${held}`,
    });
    expect(await refusal(deleteBench(ctx, { name: 'life', version: 1 }))).toMatchObject({
      code: 'CONFLICT',
      message: `bench "life" v1 cannot be deleted: ${held}`,
    });
    expect(await refusal(retryFailedUnits(ctx, run.id))).toMatchObject({
      code: 'CONFLICT',
      message: `run ${run.id}'s failed units cannot be retried: ${held}`,
    });
    expect((await getRun(ctx, run.id)).done).toBe(RETAIL_ITEMS);
    await deleteQueue(store, queue.id);

    expect(await deleteRun(ctx, run.id)).toEqual({
      deleted: run.id,
      bench: 'life',
      benchVersion: 1,
      units: RETAIL_ITEMS,
    });
    expect(await refusal(getRun(ctx, run.id))).toMatchObject({ code: 'NOT_FOUND' });
    expect(await store.listScores(run.id, { offset: 0, limit: 10 })).toEqual({
      total: 0,
      rows: [],
    });
    expect((await listRuns(ctx, 'life')).map((left) => left.id)).not.toContain(run.id);
  });

  it('refuses to delete a run that is going, then deletes the bench with its runs', async () => {
    const going = await startRun(ctx, input(endpoint.url));
    expect(await refusal(deleteRun(ctx, going.id))).toMatchObject({
      code: 'CONFLICT',
      message: expect.stringMatching(
        new RegExp(
          `^run ${going.id} cannot be deleted: run ${going.id} is still (queued|running); cancel it first$`,
        ),
      ),
    });
    await cancelRun(ctx, going.id);
    const runs = await listRuns(ctx, 'life');
    expect(await deleteBench(ctx, { name: 'life', version: 1 })).toEqual({
      name: 'life',
      version: 1,
      items: RETAIL_ITEMS,
      runs: runs.length,
    });
    expect(await listBenches(ctx)).toEqual([]);
    expect(await listRuns(ctx)).toEqual([]);
    // The dataset it was built from stays.
    expect((await store.listDatasets()).map((dataset) => dataset.name)).toEqual(['retail']);
  });
});
