import { missingVerdictCount, type BenchRun } from '@terrarium/schema';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createQueue, deleteQueue } from '../labels/label-service';
import { closedPort } from '../testing/closed-port';
import { PROGRAM_PRINCIPAL, type ApiContext } from '../trpc';
import { leaderboard, listRuns, startRun, watchRun } from './bench-service';
import { judgePairwise } from './pairwise-judging';
import { askingJudgeAgain } from './judge-asking';
import { deleteRun, retryFailedUnits, stopJudge } from './run-lifecycle';
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

  /** What `bench.runs` says the run's judge owes. */
  async function verdictsMissingInList(runId: string): Promise<number | undefined> {
    return (await listRuns(ctx, 'judged')).find((listed) => listed.id === runId)?.missingVerdicts;
  }

  /** Each of the run's results lines holds one judge call (1 token in, 1 out, no price set). */
  async function expectOneCallOnEachLine(runId: string): Promise<void> {
    const { rows } = await ctx.store.listPredictions(runId, { offset: 0, limit: 100 });
    expect(rows.map((row) => row.judgeUsage)).toEqual(
      Array.from({ length: ITEMS }, () => ({ inputTokens: 1, outputTokens: 1, costUsd: null })),
    );
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
    // Nothing failed, so a refused retry speaks of the judge, not of failed units.
    const queue = await createQueue(ctx.store, PROGRAM_PRINCIPAL, {
      name: 'spot check',
      runId: run.id,
      selection: { kind: 'random', count: 5, seed: 1 },
      labelsPerItem: 1,
      blind: true,
      leaseSeconds: 600,
    });
    await expect(retryFailedUnits(ctx, run.id)).rejects.toThrow(
      `run ${run.id}'s judge cannot be asked again for its ${ITEMS} missing verdicts: labeling queue "spot check" (run ${run.id}, 0 labels) holds people's labels on it;`,
    );
    await deleteQueue(ctx.store, queue.id);
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
    expect(run.judgeUsage).toEqual({
      inputTokens: ITEMS,
      outputTokens: ITEMS,
      costUsd: null,
      unpriced: { units: ITEMS, knownUsd: 0 },
    });
    await expectOneCallOnEachLine(run.id);
  }, 120_000);

  it('asks the judge again, on a retry, for the verdicts it refused, and pays only for those', async () => {
    // The judge answers 5 units, then refuses (HTTP 400, not retried) until told otherwise.
    endpoint.refuseWith('the judge is busy', 5);
    const run = await runWithJudge('judge');
    expect(run).toMatchObject({ status: 'done', done: ITEMS, failed: 0 });
    const board = await leaderboard(ctx, run.id, 0);
    expect(
      board.judgeGaps.map(({ sim, metric, unreadable, asked }) => [sim, metric, unreadable, asked]),
    ).toEqual([['replay', 'overall', ITEMS - 5, ITEMS]]);
    expect(board.judgeGaps[0]?.example).toMatch(/^\(judge request failed: .*the judge is busy/);
    expect(run.judgeUsage).toMatchObject({ inputTokens: 5, outputTokens: 5 });
    // The lists of runs (Benches page, `bench runs`) say the same as the run page.
    expect(await verdictsMissingInList(run.id)).toBe(ITEMS - 5);

    endpoint.refuseWith(null);
    const before = endpoint.bodies.length;
    // Nothing failed to predict: the predictions stay, and only the 7 refused are judged again.
    const retried = await retryFailedUnits(ctx, run.id);
    expect(retried).toMatchObject({ status: 'done', done: ITEMS, failed: 0 });
    expect(endpoint.bodies.length - before).toBe(ITEMS - 5);
    const filled = await leaderboard(ctx, run.id, 0);
    expect(filled.judgeGaps).toEqual([]);
    expect(await verdictsMissingInList(run.id)).toBe(0);
    expect(
      filled.cells.find(
        (cell) => cell.source === 'judge' && cell.metric === 'overall' && cell.task === 'overall',
      ),
    ).toMatchObject({ n: ITEMS, missing: 0 });
    // Each unit's line now holds its one answered call, and the lines sum to the run's total.
    expect(filled.run.judgeUsage).toEqual({
      inputTokens: ITEMS,
      outputTokens: ITEMS,
      costUsd: null,
      unpriced: { units: ITEMS, knownUsd: 0 },
    });
    await expectOneCallOnEachLine(run.id);
    // With nothing left to retry, it says so.
    await expect(retryFailedUnits(ctx, run.id)).rejects.toThrow(
      `run ${run.id}'s failed units cannot be retried: none failed and every judge verdict was read`,
    );
  }, 120_000);

  it('stops asking the judge when told to, keeping what it gave and what is still missing', async () => {
    const held = await startRecordingEndpoint({ holdAfter: ITEMS });
    try {
      held.refuseWith('the judge is busy', 5);
      const run = await runWithJudge('judge', held.url);
      held.refuseWith(null);
      const retry = retryFailedUnits(ctx, run.id);
      await vi.waitFor(() => expect(held.bodies.length).toBeGreaterThan(ITEMS));
      expect(await stopJudge(ctx, run.id)).toEqual({ stopped: true, missing: ITEMS - 5 });
      // The retry ends without an error: what it asked for is still missing, and nothing more is
      // asked, even once the held requests could be answered.
      expect((await retry).status).toBe('done');
      const asked = held.bodies.length;
      held.release();
      const board = await leaderboard(ctx, run.id, 0);
      expect([board.judgeGaps[0]?.unreadable, board.askingJudge]).toEqual([ITEMS - 5, false]);
      expect(held.bodies.length).toBe(asked);
      expect(asked).toBeLessThan(2 * ITEMS - 5);
      // With nothing under way, there is nothing to stop.
      expect(await stopJudge(ctx, run.id)).toEqual({ stopped: false, missing: ITEMS - 5 });
    } finally {
      held.release();
      await held.close();
    }
  }, 120_000);

  it('joins a second retry to the asking under way, and keeps the run from being deleted meanwhile', async () => {
    // Answers the run's requests, then holds every later one until released.
    const held = await startRecordingEndpoint({ holdAfter: ITEMS });
    try {
      held.refuseWith('the judge is busy', 5);
      const run = await runWithJudge('judge', held.url);
      expect((await leaderboard(ctx, run.id, 0)).judgeGaps[0]?.unreadable).toBe(ITEMS - 5);
      held.refuseWith(null);
      const first = retryFailedUnits(ctx, run.id);
      await vi.waitFor(() => expect(held.bodies.length).toBeGreaterThan(ITEMS));
      // A second tab or CLI while the judge is asked: the run still reads `done`.
      const second = retryFailedUnits(ctx, run.id);
      expect(askingJudgeAgain(ctx.store, run.id)).toBe(true);
      // Every view of the run says so (the run page then shows the asking, not a button).
      expect((await leaderboard(ctx, run.id, 0)).askingJudge).toBe(true);
      await expect(deleteRun(ctx, run.id)).rejects.toThrow(
        `run ${run.id} cannot be deleted: run ${run.id}'s judge is being asked again for its missing verdicts; try again once that ends`,
      );
      held.release();
      await Promise.all([first, second]);
      // Each missing verdict was asked for once, not once per retry.
      expect(held.bodies.length).toBe(ITEMS + (ITEMS - 5));
      const after = await leaderboard(ctx, run.id, 0);
      expect([after.judgeGaps, after.askingJudge]).toEqual([[], false]);
      expect(askingJudgeAgain(ctx.store, run.id)).toBe(false);
    } finally {
      held.release();
      await held.close();
    }
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

  it('names the pairs it could not judge, counts each pair’s cost on one line, and asks again only for those', async () => {
    const started = await startRun(ctx, {
      bench: 'judged',
      sims: ['replay', 'retrieval'],
      judge: { spec: `openai:${endpoint.url}#pair`, temperature: 0, repeats: 1, mode: 'pairwise' },
      mode: { kind: 'open' },
      split: 'test',
    });
    let ended = started;
    for await (const run of watchRun(ctx, started.id, undefined)) ended = run;
    // A pairwise judge judges after the run: until asked, every pair is owed, counted once.
    const unjudged = await leaderboard(ctx, started.id, 0);
    expect([unjudged.pairsNotAsked, unjudged.judgeGaps]).toEqual([ITEMS, []]);
    expect(missingVerdictCount(ended, unjudged.judgeGaps, unjudged.pairsNotAsked)).toBe(ITEMS);
    expect(await verdictsMissingInList(started.id)).toBe(ITEMS);
    // The judge answers 5 pairs, then refuses (HTTP 400, not retried) until told otherwise.
    endpoint.refuseWith('the judge is busy', 5);
    expect(await judgePairwise(ctx, started.id)).toEqual({ judged: ITEMS, kept: 0 });
    const board = await leaderboard(ctx, started.id, 0);
    // 7 pairs without a verdict, listed on both simulators, owed once.
    expect(missingVerdictCount(ended, board.judgeGaps, board.pairsNotAsked)).toBe(ITEMS - 5);
    expect(await verdictsMissingInList(started.id)).toBe(ITEMS - 5);
    expect(
      board.judgeGaps.map(({ sim, metric, unreadable, asked }) => [sim, metric, unreadable, asked]),
    ).toEqual([
      ['replay', 'pairwise:retrieval', ITEMS - 5, ITEMS],
      ['retrieval', 'pairwise:replay', ITEMS - 5, ITEMS],
    ]);
    expect(board.judgeGaps[0]?.example).toMatch(/^\(judge request failed: .*the judge is busy/);
    // An answered request spent 1 token in and 1 out, a refused one nothing known; each pair's
    // judging is counted on the line of its second simulator, so the lines sum to the run's total.
    expect(board.run.judgeUsage).toEqual({
      inputTokens: 5,
      outputTokens: 5,
      costUsd: null,
      unpriced: { units: 5, knownUsd: 0 },
    });
    const lines = (await ctx.store.listPredictions(started.id, { offset: 0, limit: 100 })).rows;
    const tally = new Map<string, number>();
    for (const line of lines) {
      const key = `${line.sim} ${JSON.stringify(line.judgeUsage ?? null)}`;
      tally.set(key, (tally.get(key) ?? 0) + 1);
    }
    expect(Object.fromEntries(tally)).toEqual({
      'replay null': ITEMS,
      'retrieval {"inputTokens":1,"outputTokens":1,"costUsd":null}': 5,
      'retrieval {"inputTokens":0,"outputTokens":0,"costUsd":0}': ITEMS - 5,
    });

    // The end of a followed run (`bench run`, after a `bench retry`) asks only pairs never asked:
    // those asked in vain are a retry's, not paid for a second time on the way.
    endpoint.refuseWith(null);
    const before = endpoint.bodies.length;
    expect(await judgePairwise(ctx, started.id, { pairs: 'not-asked' })).toEqual({
      judged: 0,
      kept: ITEMS,
    });
    expect(endpoint.bodies.length).toBe(before);
    // Asked again (as a resumed or retried run is), only the 7 pairs with no verdict are judged.
    expect(await judgePairwise(ctx, started.id)).toEqual({ judged: ITEMS - 5, kept: 5 });
    expect(endpoint.bodies.length - before).toBe(ITEMS - 5);
    const filled = await leaderboard(ctx, started.id, 0);
    expect(filled.judgeGaps).toEqual([]);
    expect(filled.run.judgeUsage).toEqual({
      inputTokens: ITEMS,
      outputTokens: ITEMS,
      costUsd: null,
      unpriced: { units: ITEMS, knownUsd: 0 },
    });
    // Every pair again, on request: replaced, and paid for once more.
    expect(await judgePairwise(ctx, started.id, { pairs: 'all' })).toEqual({
      judged: ITEMS,
      kept: 0,
    });
    expect((await leaderboard(ctx, started.id, 0)).run.judgeUsage).toEqual({
      inputTokens: 2 * ITEMS,
      outputTokens: 2 * ITEMS,
      costUsd: null,
      unpriced: { units: 2 * ITEMS, knownUsd: 0 },
    });
  }, 120_000);
});
