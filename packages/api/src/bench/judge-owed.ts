import type { Store } from '@terrarium/db';
import { missingVerdictCount, type BenchRun, type PairwiseSides } from '@terrarium/schema';

/**
 * Verdicts the run's judge owes (`missingVerdictCount`): those it did not give and a pairwise
 * judge's pairs not asked yet.
 */
export async function owedVerdicts(store: Store, run: BenchRun): Promise<number> {
  if (run.judge === null) return 0;
  return missingVerdictCount(
    run,
    await store.runJudgeGaps(run.id),
    await pairsNotAsked(store, run),
  );
}

/** A pairwise judge's pairs not asked about yet; 0 for any other run. */
export function pairsNotAsked(store: Store, run: BenchRun): Promise<number> {
  const [first, ...others] = run.sims;
  return run.judge?.mode === 'pairwise' && first !== undefined
    ? store.pairsNotAsked(run.id, first, others)
    : Promise.resolve(0);
}

/** A pairwise judge's answers by side (`Leaderboard.pairwiseSides`); null for any other run. */
export async function pairwiseSides(store: Store, run: BenchRun): Promise<PairwiseSides | null> {
  const [first] = run.sims;
  return run.judge?.mode === 'pairwise' && first !== undefined
    ? store.pairwiseSides(run.id, first)
    : null;
}
