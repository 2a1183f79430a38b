import type { Store } from '@terrarium/db';
import type { BreakdownEntry } from '@terrarium/rubrics';
import { parseRuleSetMetric } from '@terrarium/schema';
import { z } from 'zod';

/**
 * A breakdown as `Score a whole run` stores it (the job's detail of a `NAME@vN` score). Parsed,
 * not trusted: a detail is free JSON, and a score written some other way may carry another shape.
 */
const StoredBreakdown = z.object({
  breakdown: z.array(
    z.object({
      id: z.string(),
      kind: z.enum(['rule', 'criterion']),
      score: z.number().nullable(),
      weight: z.number(),
      detail: z.string().optional(),
    }),
  ),
});

/** One rule-set version's score of a prediction, with why: each rule's value and weight. */
export interface ItemBreakdown {
  /** The metric it is stored under (source `rule`): `NAME@vN`. */
  metric: string;
  /** 0-1, as stored; null where nothing in the version applies to the item. */
  score: number | null;
  breakdown: BreakdownEntry[];
}

/**
 * The most rule-set scores read for one prediction: far more versions than anyone scores a run
 * with, and few enough that one read answers.
 */
const MAX_VERSIONS = 1_000;

/**
 * The breakdowns stored with a prediction's rule-set scores (one per version that scored it, in
 * metric order), so a bench item can say why `walk-tool@v1` gave it 20.0 (walk 52: only the
 * results JSONL said). Scores other than a saved version's own (the built-in rules, a judge's
 * criteria) carry other details and are left out.
 */
export async function itemBreakdowns(
  store: Store,
  input: { runId: string; sim: string; itemId: string },
): Promise<ItemBreakdown[]> {
  const scores = await store.listScores(input.runId, {
    sim: input.sim,
    itemIds: [input.itemId],
    source: 'rule',
    offset: 0,
    limit: MAX_VERSIONS,
  });
  return scores.rows.flatMap((score) => {
    // A version's own score only (`NAME@vN`): not a built-in rule, nor `NAME@vN/CRITERION`.
    const version = parseRuleSetMetric(score.metric);
    if (version === null || version.criterion !== null) return [];
    const stored = StoredBreakdown.safeParse(score.detail);
    if (!stored.success) return [];
    return [{ metric: score.metric, score: score.value, breakdown: stored.data.breakdown }];
  });
}
