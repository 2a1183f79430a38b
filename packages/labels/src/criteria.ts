import { JUDGE_DIMENSIONS } from '@terrarium/schema';
import { z } from 'zod';

/**
 * A rubric criterion as a labeler scores it: an integer scale and a weight. A queue keeps a copy
 * of its criteria, so editing the rule set later never changes what earlier labels meant.
 */
export const LabelCriterion = z
  .object({
    id: z.string().min(1).max(100),
    text: z.string().min(1).max(2000),
    min: z.number().int(),
    max: z.number().int(),
    weight: z.number(),
  })
  .refine((criterion) => criterion.max > criterion.min && criterion.max - criterion.min <= 9, {
    // 1-9 keys score a criterion, so a scale has at most ten points (min..min+9).
    message: 'max must be above min, by at most 9',
    path: ['max'],
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
  scale: { min: number; max: number };
  /** Criteria scored by a local rule are not for people. */
  rule?: string | undefined;
}

const CATEGORY_WEIGHT: Record<string, number> = {
  essential: 1,
  important: 0.7,
  optional: 0.3,
  pitfall: -0.9,
};

/** The criteria of a rule set that people score (those without a local rule). */
export function criteriaForLabelers(criteria: readonly RuleSetCriterionLike[]): LabelCriterion[] {
  return criteria
    .filter((criterion) => criterion.rule === undefined)
    .map((criterion) => ({
      id: criterion.id,
      text: criterion.text,
      min: criterion.scale.min,
      max: Math.min(criterion.scale.max, criterion.scale.min + 9),
      weight: criterion.weight ?? CATEGORY_WEIGHT[criterion.category ?? 'important'] ?? 1,
    }));
}

/** A raw score on the criterion's scale as [0, 1], the scale judges' scores are stored on. */
export function normalizeScore(criterion: LabelCriterion, value: number): number {
  return (value - criterion.min) / (criterion.max - criterion.min);
}
