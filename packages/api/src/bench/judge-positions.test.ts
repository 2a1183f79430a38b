import { pairwiseOrder, turingOrder } from '@terrarium/bench';
import { judgeSidesText, type BenchRun } from '@terrarium/schema';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { ApiContext } from '../trpc';
import { leaderboard, report, startRun, watchRun } from './bench-service';
import { judgePairwise } from './pairwise-judging';
import { retryFailedUnits, stopJudge } from './run-lifecycle';
import { startRecordingEndpoint, type RecordingEndpoint } from './recording-endpoint.testkit';
import { openRetailBench } from './retail-bench.testkit';

const ITEMS = 12;

/** The text of a prompt's `<tag>` block. */
function between(prompt: string, tag: string): string {
  return prompt.slice(prompt.indexOf(`<${tag}>`) + tag.length + 2, prompt.indexOf(`</${tag}>`));
}

describe('a Turing or pairwise judge that always answers A (tau2 retail, a real endpoint over HTTP)', () => {
  let ctx: ApiContext;
  let close: () => Promise<void>;
  let endpoint: RecordingEndpoint;

  /** A pairwise run of replay against retrieval, ended, its pairs not asked yet. */
  async function pairwiseRun(repeats: number, url = endpoint.url): Promise<BenchRun> {
    const started = await startRun(ctx, {
      bench: 'pairs',
      sims: ['replay', 'retrieval'],
      judge: { spec: `openai:${url}#pair`, temperature: 0, repeats, mode: 'pairwise' },
      mode: { kind: 'open' },
      split: 'test',
    });
    for await (const _ of watchRun(ctx, started.id, undefined));
    return started;
  }

  /** A judged pairwise run of replay against retrieval, and its overall win shares. */
  async function judgedPair(repeats: number) {
    const started = await pairwiseRun(repeats);
    const asked = endpoint.bodies.length;
    await judgePairwise(ctx, started.id);
    const board = await leaderboard(ctx, started.id, 0);
    const share = (sim: string, other: string) =>
      board.cells.find(
        (cell) =>
          cell.sim === sim && cell.metric === `pairwise:${other}` && cell.task === 'overall',
      );
    const items = (await ctx.store.listPredictions(started.id, { offset: 0, limit: 100 })).rows
      .filter((row) => row.sim === 'replay')
      .map((row) => row.itemId);
    return {
      board,
      prompts: endpoint.bodies.slice(asked).map((body) => body.messages.at(-1)?.content ?? ''),
      replay: share('replay', 'retrieval'),
      retrieval: share('retrieval', 'replay'),
      items,
    };
  }

  beforeAll(async () => {
    ({ ctx, close } = await openRetailBench({
      bench: 'pairs',
      concurrency: 1,
      maxItemsPerTask: ITEMS,
    }));
    endpoint = await startRecordingEndpoint();
  }, 180_000);
  afterAll(async () => {
    await endpoint?.close();
    await close?.();
  });

  it('asks each pair in both orders with k = 2, so the bias favours neither simulator', async () => {
    const { board, prompts, replay, retrieval } = await judgedPair(2);
    expect(prompts).toHaveLength(2 * ITEMS);
    // Each pair is asked once with one prediction as A and once with it as B: grouped by the pair
    // (its prompt with A and B blanked), each group holds one prompt and its mirror image.
    const groups = new Map<string, [string, string][]>();
    for (const prompt of prompts) {
      const [a, b] = [between(prompt, 'response_a'), between(prompt, 'response_b')];
      const key =
        prompt.slice(0, prompt.indexOf('<response_a>')) +
        prompt.slice(prompt.indexOf('</response_b>'));
      groups.set(key, [...(groups.get(key) ?? []), [a, b]]);
    }
    expect([...groups.values()].map((group) => group.length)).toEqual(Array(ITEMS).fill(2));
    for (const [first, second] of groups.values()) expect(second).toEqual(first?.toReversed());
    expect([replay?.mean, replay?.n, retrieval?.mean, retrieval?.n]).toEqual([
      50,
      ITEMS,
      50,
      ITEMS,
    ]);
    // An even split that is not the simulators' doing: the answers by side say so.
    const sides = {
      mode: 'pairwise' as const,
      subject: 'replay',
      judgings: 2 * ITEMS,
      subjectAsA: ITEMS,
      a: 2 * ITEMS,
      b: 0,
      tie: 0,
      unparsed: 0,
    };
    expect(board.judgeSides).toEqual(sides);
    expect((await report(ctx, board.run.id)).judgeSides).toEqual(sides);
    expect(judgeSidesText(sides)?.preference).toBe(true);
  }, 180_000);

  it('asks as many pairs at once as the judge’s endpoint takes, and each pair once however often it is asked for', async () => {
    const held = await startRecordingEndpoint({ holdAfter: 0 });
    try {
      const run = await pairwiseRun(1, held.url);
      const judging = judgePairwise(ctx, run.id);
      // Four in flight (the judge's concurrency) before any is answered: not one at a time.
      await vi.waitFor(() => expect(held.bodies.length).toBe(4));
      // A retry from the run page meanwhile joins it, and a second judging waits for it: each
      // pair is asked for once.
      const retried = retryFailedUnits(ctx, run.id);
      const again = judgePairwise(ctx, run.id);
      expect((await leaderboard(ctx, run.id, 0)).askingJudge).toBe(true);
      held.release();
      expect(await judging).toEqual({ judged: ITEMS, kept: 0 });
      expect(await again).toEqual({ judged: 0, kept: ITEMS });
      expect((await retried).id).toBe(run.id);
      expect(held.bodies).toHaveLength(ITEMS);
    } finally {
      held.release();
      await held.close();
    }
  }, 180_000);

  it('shows each simulator first on the items a seeded hash gives it with k = 1', async () => {
    const { board, prompts, replay, retrieval, items } = await judgedPair(1);
    expect(prompts).toHaveLength(ITEMS);
    const replayFirst = items.filter(
      (item) => pairwiseOrder(item, 'replay', 'retrieval', 0, 0) === 'A',
    ).length;
    // Neither side holds every item (the bias would then be the score), and the judge's "A" wins
    // exactly the items each simulator was shown first on.
    expect(replayFirst).toBeGreaterThan(0);
    expect(replayFirst).toBeLessThan(ITEMS);
    expect(replay?.mean).toBeCloseTo((100 * replayFirst) / ITEMS, 12);
    expect(retrieval?.mean).toBeCloseTo((100 * (ITEMS - replayFirst)) / ITEMS, 12);
    expect(board.judgeSides).toEqual({
      mode: 'pairwise' as const,
      subject: 'replay',
      judgings: ITEMS,
      subjectAsA: replayFirst,
      a: ITEMS,
      b: 0,
      tie: 0,
      unparsed: 0,
    });
  }, 180_000);

  it('stops judging the pairs when told to, and asks for no more', async () => {
    const held = await startRecordingEndpoint({ holdAfter: 0 });
    try {
      const run = await pairwiseRun(1, held.url);
      const judging = judgePairwise(ctx, run.id);
      await vi.waitFor(() => expect(held.bodies.length).toBe(4));
      expect(await stopJudge(ctx, run.id)).toEqual({ stopped: true, missing: ITEMS });
      expect(await judging).toEqual({ judged: 0, kept: 0 });
      held.release();
      expect(held.bodies).toHaveLength(4);
    } finally {
      held.release();
      await held.close();
    }
  }, 180_000);

  it('leaves a pair missing when one of its two judgings failed, and a retry asks it both ways again', async () => {
    const run = await pairwiseRun(2);
    const before = endpoint.bodies.length;
    // 13 judgings answered, then refused: some pairs have one side's answer only.
    endpoint.refuseWith('the judge is busy', 13);
    await judgePairwise(ctx, run.id);
    endpoint.refuseWith(null);
    expect(endpoint.bodies.length - before).toBe(2 * ITEMS);
    const shares = async () =>
      (
        await ctx.store.listScores(run.id, {
          sim: 'replay',
          source: 'judge',
          metric: 'pairwise:retrieval',
          offset: 0,
          limit: 100,
        })
      ).rows.map((score) => score.value);
    // Always A, asked both ways: a pair is even, or missing; never the one side's 0 or 1.
    const partial = await shares();
    const missing = partial.filter((value) => value === null).length;
    expect(partial.filter((value) => value !== null && value !== 0.5)).toEqual([]);
    // 11 refused judgings leave between 6 (both of a pair) and 11 pairs without a verdict.
    expect(missing).toBeGreaterThanOrEqual(6);
    expect(missing).toBeLessThanOrEqual(11);
    await retryFailedUnits(ctx, run.id);
    expect(endpoint.bodies.length - before).toBe(2 * ITEMS + 2 * missing);
    expect(await shares()).toEqual(Array(ITEMS).fill(0.5));
  }, 180_000);

  it('puts the real observation on the side a seeded hash gives it in Turing mode, and says the judge answered by side', async () => {
    const started = await startRun(ctx, {
      bench: 'pairs',
      sims: ['replay'],
      judge: { spec: `openai:${endpoint.url}#turing`, temperature: 0, repeats: 1, mode: 'turing' },
      mode: { kind: 'open' },
      split: 'test',
    });
    for await (const _ of watchRun(ctx, started.id, undefined));
    const board = await leaderboard(ctx, started.id, 0);
    const items = (await ctx.store.listPredictions(started.id, { offset: 0, limit: 100 })).rows;
    const realAtA = items.filter((row) => turingOrder(row.itemId, 0) === 'A').length;
    expect(realAtA).toBeGreaterThan(0);
    expect(realAtA).toBeLessThan(ITEMS);
    // Taking A for the real one, the judge is fooled exactly where the real one was B.
    const fooled = board.cells.find(
      (cell) => cell.metric === 'turing-fooled' && cell.task === 'overall',
    );
    expect(fooled?.mean).toBeCloseTo((100 * (ITEMS - realAtA)) / ITEMS, 12);
    expect(board.judgeSides).toEqual({
      mode: 'turing',
      subject: 'real',
      judgings: ITEMS,
      subjectAsA: realAtA,
      a: ITEMS,
      b: 0,
      tie: 0,
      unparsed: 0,
    });
  }, 180_000);
});
