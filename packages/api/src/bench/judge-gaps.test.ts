import type { BenchRun } from '@terrarium/schema';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { closedPort } from '../testing/closed-port';
import type { ApiContext } from '../trpc';
import { leaderboard, startRun, watchRun } from './bench-service';
import { startRecordingEndpoint, type RecordingEndpoint } from './recording-endpoint.testkit';
import { openRetailBench } from './retail-bench.testkit';

const ITEMS = 12;

describe('a judge whose verdicts cannot be read (tau2 retail, a real endpoint over HTTP)', () => {
  let ctx: ApiContext;
  let close: () => Promise<void>;
  let endpoint: RecordingEndpoint;

  async function runWithJudge(model: string, url = endpoint.url): Promise<BenchRun> {
    const started = await startRun(ctx, {
      bench: 'judged',
      sims: ['replay'],
      judge: { spec: `openai:${url}#${model}`, temperature: 0, repeats: 1, mode: 'score' },
      mode: { kind: 'open' },
      split: 'test',
    });
    let last = started;
    for await (const run of watchRun(ctx, started.id, undefined)) last = run;
    return last;
  }

  beforeAll(async () => {
    ({ ctx, close } = await openRetailBench({
      bench: 'judged',
      concurrency: 1,
      maxItemsPerTask: ITEMS,
    }));
    endpoint = await startRecordingEndpoint();
  }, 180_000);
  afterAll(async () => {
    await endpoint?.close();
    await close?.();
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
        unreadable: ITEMS,
        asked: ITEMS,
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

  it('counts the judge’s tokens per unit and on the run, apart from the simulators’', async () => {
    const run = await runWithJudge('judge');
    // The endpoint reports 1 prompt and 1 completion token a call; no price is configured, so the
    // judge's cost is not known, while replay's is a true 0.
    expect(run.usage).toEqual({ inputTokens: 0, outputTokens: 0, costUsd: 0 });
    expect(run.judgeUsage).toEqual({ inputTokens: ITEMS, outputTokens: ITEMS, costUsd: null });
    const { rows } = await ctx.store.listPredictions(run.id, { offset: 0, limit: 100 });
    expect(rows.map((row) => row.judgeUsage)).toEqual(
      rows.map(() => ({ inputTokens: 1, outputTokens: 1, costUsd: null })),
    );
    expect(rows).toHaveLength(ITEMS);
  }, 120_000);

  it('gives the request’s failure as the reason when the judge cannot be reached', async () => {
    const run = await runWithJudge('judge', `http://127.0.0.1:${await closedPort()}/v1`);
    expect(run).toMatchObject({ status: 'done', done: ITEMS, failed: 0 });
    const [gap] = (await leaderboard(ctx, run.id, 0)).judgeGaps;
    expect(gap).toMatchObject({
      sim: 'replay',
      metric: 'overall',
      unreadable: ITEMS,
      asked: ITEMS,
    });
    expect(gap?.example).toMatch(/^\(judge request failed: .*nothing accepted the connection/);
    // A request that never reached the judge spent nothing.
    expect(run.judgeUsage).toEqual({ inputTokens: 0, outputTokens: 0, costUsd: 0 });
  }, 120_000);
});
