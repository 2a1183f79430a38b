import type { BenchItem, BenchRun, ItemScore } from '@terrarium/schema';
import { TRPCError } from '@trpc/server';
import { simulatorTrpcError, type ServiceContext } from '../trpc';
import { judgePairs } from './pairwise-judging';
import { readAll } from './read-all';
import { isFinishedRun } from '@terrarium/schema';
import { JudgingStopped } from './judge';
import { joinAsking } from './judge-asking';
import { inlineRunDeps } from './run-deps';

// The endpoint pool bounds what reaches one endpoint; this only keeps a few judgings queued.
const LANES = 16;

/**
 * Asks a finished run's judge again where its verdict is missing: a request that failed after its
 * retries, an answer that could not be read. The stored predictions are judged, not predicted
 * again, with the judge, prompts and prices of the run's own workers (`inlineRunDeps`); the new
 * verdicts replace the missing ones and what the judge spent joins the unit's and the run's judge
 * totals. Verdicts that were read are kept. A pairwise judge is asked for its missing pairs.
 */
export function judgeGapsAgain(ctx: ServiceContext, run: BenchRun): Promise<void> {
  return joinAsking(ctx.store, run.id, (signal) => askAgain(ctx, run, signal));
}

async function askAgain(ctx: ServiceContext, run: BenchRun, signal: AbortSignal): Promise<void> {
  if (run.judge === null) {
    throw new TRPCError({ code: 'BAD_REQUEST', message: `runId: run ${run.id} has no judge` });
  }
  if (!isFinishedRun(run)) {
    throw new TRPCError({
      code: 'CONFLICT',
      message: `run ${run.id} is still ${run.status}: its judge is asked again once it has ended`,
    });
  }
  if (run.judge.mode === 'pairwise') {
    await judgePairs(ctx, run.id, {}, signal);
    return;
  }
  const units = await unitsWithoutVerdict(ctx, run.id);
  const deps = inlineRunDeps(ctx.store);
  const items = new Map<string, BenchItem>();
  const ref = { name: run.bench, version: run.benchVersion };
  for (const item of await ctx.store.getBenchItemsByIds(ref, [
    ...new Set(units.map((unit) => unit.itemId)),
  ])) {
    items.set(item.id, item);
  }
  let next = 0;
  async function lane(): Promise<void> {
    for (let unit = units[next++]; unit !== undefined && !signal.aborted; unit = units[next++]) {
      const item = items.get(unit.itemId);
      const [prediction] = (
        await ctx.store.listPredictions(run.id, {
          sim: unit.sim,
          itemIds: [unit.itemId],
          offset: 0,
          limit: 1,
        })
      ).rows;
      // A unit without an item or an observation has nothing to judge (no verdict was asked).
      if (item === undefined || prediction?.observation == null) continue;
      let scored;
      try {
        scored = await deps.score(item, unit.sim, prediction.observation, run, signal);
      } catch (error) {
        // Stopped between a unit's judgings: what the answered ones spent is still counted.
        if (error instanceof JudgingStopped && error.answered > 0) {
          await ctx.store.addScores(run.id, [], { ...unit, usage: error.usage });
        }
        throw error;
      }
      const { scores, judgeUsage } = scored;
      const verdicts = scores.filter((score) => score.source === 'judge');
      await ctx.store.addScores(
        run.id,
        verdicts,
        judgeUsage === undefined ? undefined : { ...unit, usage: judgeUsage },
      );
    }
  }
  try {
    await Promise.all(Array.from({ length: Math.min(LANES, units.length) }, lane));
  } catch (error) {
    // Stopped by the user: the verdicts given so far are stored, the rest stay missing.
    if (signal.aborted) return;
    throw simulatorTrpcError(error);
  }
}

/** The units whose verdict (score mode's `overall`, Turing mode's `turing-fooled`) is missing. */
async function unitsWithoutVerdict(
  ctx: ServiceContext,
  runId: string,
): Promise<{ itemId: string; sim: string }[]> {
  const units: { itemId: string; sim: string }[] = [];
  for (const gap of await ctx.store.runJudgeGaps(runId)) {
    const scores: ItemScore[] = await readAll((offset, limit) =>
      ctx.store.listScores(runId, {
        sim: gap.sim,
        source: 'judge',
        metric: gap.metric,
        offset,
        limit,
      }),
    );
    for (const score of scores) {
      if (score.value === null) units.push({ itemId: score.itemId, sim: score.sim });
    }
  }
  return units;
}
