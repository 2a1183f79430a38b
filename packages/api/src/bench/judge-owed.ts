import type { Store } from '@terrarium/db';
import { missingVerdictCount, type BenchRun, type JudgeSides } from '@terrarium/schema';

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

/** A Turing or pairwise judge's answers by side (`Leaderboard.judgeSides`); null for others. */
export async function judgeSides(store: Store, run: BenchRun): Promise<JudgeSides | null> {
  const [first] = run.sims;
  if (run.judge?.mode === 'turing') return store.judgeSides(run.id, 'turing', 'real');
  return run.judge?.mode === 'pairwise' && first !== undefined
    ? store.judgeSides(run.id, 'pairwise', first)
    : null;
}
