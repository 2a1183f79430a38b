import type { BenchItem, Observation } from '@terrarium/schema';
import { TRPCError } from '@trpc/server';
import { endpointAllowlistFromEnv } from '../simulate/sim-spec';
import { simulatorTrpcError, type ServiceContext } from '../trpc';
import { runData } from './bench-service';
import { createJudge, JudgingStopped, type Judge } from './judge';
import { askAfterOthers } from './judge-asking';
import { priceOf, pricingFromEnv } from './pricing';
import { readAll } from './read-all';

/**
 * Which pairs a pairwise judging asks about: `missing` (the default), those with no verdict read
 * (never asked, or the judge's answer could not be read); `not-asked`, those never asked (as a
 * followed run ends: one asked in vain waits for a retry rather than being paid for twice); `all`,
 * every pair anew, replacing the verdicts.
 */
export type PairsToJudge = 'missing' | 'not-asked' | 'all';

/**
 * Pairwise judging of a finished run: for each item, the first simulator against each other one
 * (which prediction is closer to the real observation?). It needs both predictions, so it runs
 * after the run rather than per unit. Scores are stored with source `judge`. The pairs `pairs`
 * does not name are kept (a resumed or retried run pays only for its new pairs and those the
 * judge could not answer). A pair's cost is counted on the other simulator's unit, so the
 * results' lines sum to the run's judge total.
 */
export function judgePairwise(
  ctx: ServiceContext,
  runId: string,
  options: { pairs?: PairsToJudge } = {},
): Promise<{ judged: number; kept: number }> {
  // `bench run` judges the pairs as its run ends; a retry from the run page at that moment waits
  // for it and finds its verdicts, rather than asking for the same pairs.
  return askAfterOthers(ctx.store, runId, (signal) => judgePairs(ctx, runId, options, signal));
}

/** `judgePairwise` without waiting for other askings: for one that is already counted as one. */
export async function judgePairs(
  ctx: ServiceContext,
  runId: string,
  options: { pairs?: PairsToJudge } = {},
  signal?: AbortSignal,
): Promise<{ judged: number; kept: number }> {
  const data = await runData(ctx.store, runId);
  const { run } = data;
  if (run.judge === null || run.judge.mode !== 'pairwise') {
    throw new TRPCError({
      code: 'BAD_REQUEST',
      message: `runId: run ${runId} has no pairwise judge`,
    });
  }
  const [firstSim, ...others] = run.sims;
  if (firstSim === undefined || others.length === 0) {
    throw new TRPCError({
      code: 'BAD_REQUEST',
      message: 'sims: pairwise judging needs two simulators',
    });
  }
  const first: string = firstSim;
  let judge: Judge;
  try {
    const pricing = priceOf(pricingFromEnv(), run.judge.spec);
    judge = createJudge(run.judge, {
      allowlist: endpointAllowlistFromEnv(),
      ...(pricing === undefined ? {} : { pricing }),
    });
  } catch (error) {
    throw simulatorTrpcError(error);
  }
  const predictions = await readAll((offset, limit) =>
    ctx.store.listPredictions(runId, { offset, limit }),
  );
  const byUnit = new Map(predictions.map((p) => [`${p.sim}\u0000${p.itemId}`, p]));
  // `first`'s score of a pair is `pairwise:<other>`; null when no verdict could be read. The pairs
  // kept: with a verdict read, or (`not-asked`) asked at all.
  const which = options.pairs ?? 'missing';
  const keep = new Set(
    data.scores.flatMap((score) =>
      which !== 'all' &&
      score.source === 'judge' &&
      score.sim === first &&
      (score.value !== null || which === 'not-asked')
        ? [`${score.metric}\u0000${score.itemId}`]
        : [],
    ),
  );
  const pairs: { item: BenchItem; a: Observation; other: string; b: Observation }[] = [];
  let kept = 0;
  for (const item of data.items.values()) {
    const a = byUnit.get(`${first}\u0000${item.id}`)?.observation;
    if (a === undefined || a === null) continue;
    for (const other of others) {
      const b = byUnit.get(`${other}\u0000${item.id}`)?.observation;
      if (b === undefined || b === null) continue;
      if (keep.has(`pairwise:${other}\u0000${item.id}`)) kept++;
      else pairs.push({ item, a, other, b });
    }
  }
  // Several pairs at once, as a run judges its units: the judge's endpoint pool bounds what
  // reaches it; one at a time left it idle between answers.
  let next = 0;
  let judged = 0;
  async function lane(): Promise<void> {
    for (let pair = pairs[next++]; pair !== undefined; pair = pairs[next++]) {
      const { item, a, other, b } = pair;
      let judgedPair;
      try {
        judgedPair = await judge.pairwise(
          item,
          { sim: first, predicted: a },
          { sim: other, predicted: b },
          signal,
        );
      } catch (error) {
        // Stopped between a pair's judgings: what the answered ones spent is still counted.
        if (error instanceof JudgingStopped && error.answered > 0) {
          await ctx.store.addScores(runId, [], { itemId: item.id, sim: other, usage: error.usage });
        }
        throw error;
      }
      const { scores, usage } = judgedPair;
      await ctx.store.addScores(runId, scores, { itemId: item.id, sim: other, usage });
      judged++;
    }
  }
  try {
    await Promise.all(Array.from({ length: Math.min(PAIR_LANES, pairs.length) }, lane));
  } catch (error) {
    // Stopped by the user: the pairs judged so far are stored, the rest stay owed.
    if (signal?.aborted !== true) throw error;
  }
  return { judged, kept };
}

// Pairs judged at once: a few more than the judge's endpoint takes, so it always has one queued.
const PAIR_LANES = 8;
