import { JUDGE_DIMENSIONS } from '@terrarium/schema';
import { z } from 'zod';

/**
 * The most points a labeler's scale may have. Each point is a button in one row of the criteria
 * panel, so 0–10 (the widest scale rubrics commonly use) is the limit; a wider scale is refused
 * when the queue is made, never cut (a cut scale would normalise humans against another maximum
 * than the judge's).
 */
export const MAX_SCALE_POINTS = 11;

/** Why a criterion's scale cannot be labeled, or null when it can. */
export function labelScaleProblem(criterion: {
  id: string;
  min: number;
  max: number;
}): string | null {
  const { id, min, max } = criterion;
  if (max <= min) return `criterion ${id}: max (${max}) must be above min (${min})`;
  const points = max - min + 1;
  if (points > MAX_SCALE_POINTS) {
    return `criterion ${id}: its scale ${min}–${max} has ${points} points; labelers score at most ${MAX_SCALE_POINTS} (e.g. 0–10), so give it a shorter scale`;
  }
  return null;
}

/**
 * A rubric criterion as a labeler scores it: an integer scale, what its points mean, and a weight.
 * A queue keeps a copy of its criteria, so editing the rule set later never changes what earlier
 * labels meant.
 */
export const LabelCriterion = z
  .object({
    id: z.string().min(1).max(100),
    text: z.string().min(1).max(2000),
    min: z.number().int(),
    max: z.number().int(),
    weight: z.number(),
    /** What each point of the scale means, keyed by the number (as a rule set's `scale.labels`). */
    labels: z.record(z.string(), z.string().max(500)).optional(),
  })
  .superRefine((criterion, ctx) => {
    const problem = labelScaleProblem(criterion);
    if (problem !== null) ctx.addIssue({ code: 'custom', message: problem, path: ['max'] });
  });
export type LabelCriterion = z.infer<typeof LabelCriterion>;

const DIMENSION_TEXT: Record<(typeof JUDGE_DIMENSIONS)[number], string> = {
  format: 'Is the observation in the form the real environment would return (JSON shape, layout)?',
  factuality: 'Do facts the history already fixed (ids, values, echoed text) match?',
  consistency: 'Does it agree with everything earlier in the trajectory?',
  realism: 'Could the real environment plausibly have returned this?',
  quality: 'Overall, how good a stand-in for the real observation is it?',
};

/** The judge's five AgentWorldBench dimensions on its 1-5 scale: humans and judge score alike. */
export const DEFAULT_CRITERIA: readonly LabelCriterion[] = JUDGE_DIMENSIONS.map((id) => ({
  id,
  text: DIMENSION_TEXT[id],
  min: 1,
  max: 5,
  weight: 1,
}));

/** The part of a rubrics rule-set criterion a labeler needs (structural, so drafts work too). */
export interface RuleSetCriterionLike {
  id: string;
  text: string;
  weight?: number | undefined;
  category?: string | undefined;
  scale: { min: number; max: number; labels?: Record<string, string> | undefined };
  /** Criteria scored by a local rule are not for people. */
  rule?: string | undefined;
}

const CATEGORY_WEIGHT: Record<string, number> = {
  essential: 1,
  important: 0.7,
  optional: 0.3,
  pitfall: -0.9,
};

/**
 * The criteria of a rule set that people score (those without a local rule), on their own scales
 * with their points' meanings. A scale too wide to label is kept as it is: `labelScaleProblem`
 * says why a queue refuses it.
 */
export function criteriaForLabelers(criteria: readonly RuleSetCriterionLike[]): LabelCriterion[] {
  return criteria
    .filter((criterion) => criterion.rule === undefined)
    .map((criterion) => ({
      id: criterion.id,
      text: criterion.text,
      min: criterion.scale.min,
      max: criterion.scale.max,
      weight: criterion.weight ?? CATEGORY_WEIGHT[criterion.category ?? 'important'] ?? 1,
      ...(criterion.scale.labels === undefined ? {} : { labels: { ...criterion.scale.labels } }),
    }));
}

/** A raw score on the criterion's scale as [0, 1], the scale judges' scores are stored on. */
export function normalizeScore(criterion: LabelCriterion, value: number): number {
  return (value - criterion.min) / (criterion.max - criterion.min);
}

/**
 * The rule-set criteria a re-judge of a queue scores: those a judge scores (no local rule) that
 * the queue's labels have, by id, since labels and judge scores pair by criterion id.
 */
export function rejudgedCriteria<T extends Pick<RuleSetCriterionLike, 'id' | 'rule'>>(
  queueCriteria: readonly { id: string }[],
  ruleSetCriteria: readonly T[],
): T[] {
  const labeled = new Set(queueCriteria.map((criterion) => criterion.id));
  return ruleSetCriteria.filter(
    (criterion) => criterion.rule === undefined && labeled.has(criterion.id),
  );
}

/** The queue's criteria a re-judge with these rule-set criteria would leave unscored, in order. */
export function criteriaLeftUnscored(
  queueCriteria: readonly { id: string }[],
  ruleSetCriteria: readonly Pick<RuleSetCriterionLike, 'id' | 'rule'>[],
): string[] {
  const scored = new Set(
    rejudgedCriteria(queueCriteria, ruleSetCriteria).map((criterion) => criterion.id),
  );
  return queueCriteria.map((criterion) => criterion.id).filter((id) => !scored.has(id));
}
