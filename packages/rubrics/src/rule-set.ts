import { CONTENT_CLASSES, RULE_METRIC_IDS } from '@terrarium/fidelity';
import { Domain } from '@terrarium/schema';
import { z } from 'zod';

const Id = z
  .string()
  .regex(/^[a-z0-9][a-z0-9._-]{0,63}$/, 'lowercase letters, digits, ".", "_" or "-", at most 64')
  .describe('Unique within the rule set; names the entry in every score breakdown.');

/** Where a rule applies; an item outside the scope gets no score from it (not a 0). */
export const RuleScope = z
  .strictObject({
    // One of the domains items have: a typo (`tooll`) left the rule out of scope of every item
    // without a word (walk 43).
    domains: z.array(Domain).min(1).optional().describe('Item domains (`tool`, `terminal`…).'),
    tools: z
      .array(z.string().min(1))
      .min(1)
      .optional()
      .describe('Tool names: the first word of the action (`get_user_details`, `ls`).'),
  })
  .describe('Applies only to items of these domains and/or tools.');
export type RuleScope = z.infer<typeof RuleScope>;

const ruleFields = {
  id: Id,
  description: z.string().optional().describe('What the rule checks, shown in the editor.'),
  weight: z
    .number()
    .min(0)
    .default(1)
    .describe('Weight in the rule part of the score; 0 computes the rule for the breakdown only.'),
  threshold: z
    .number()
    .min(0)
    .max(1)
    .optional()
    .describe('When set, the rule scores 1 when its value is at least the threshold, else 0.'),
  not: z
    .boolean()
    .default(false)
    .describe('Inverts the rule: 1 − value (after the threshold). A rule that must NOT hold.'),
  scope: RuleScope.optional(),
};

export const MetricRule = z
  .strictObject({
    ...ruleFields,
    type: z.literal('metric'),
    metric: z.enum(RULE_METRIC_IDS).describe('A rule metric of the fidelity bench.'),
  })
  .describe('One of the fidelity bench rule metrics, a number in [0, 1] or n/a.');

export const ContentClassWeights = z
  .strictObject(
    Object.fromEntries(CONTENT_CLASSES.map((cls) => [cls, z.number().min(0).optional()])),
  )
  .describe(
    'Relative weight of each content class (default deterministic 4, structure 3, numeric-live 2, runtime-metadata 1, unseen-content 1).',
  );

export const ContentRule = z
  .strictObject({
    ...ruleFields,
    type: z.literal('content'),
    class: z
      .enum(CONTENT_CLASSES)
      .optional()
      .describe('Score of one content class only (n/a when the observation has none of it).'),
    weights: ContentClassWeights.optional(),
    contradictionFactor: z
      .number()
      .min(0)
      .max(1)
      .optional()
      .describe(
        'Factor on the item when the prediction contradicts deterministic content (default 0.75).',
      ),
  })
  .describe("The fidelity bench's content-class score of the prediction against the reference.");

export const PatternRule = z
  .strictObject({
    ...ruleFields,
    type: z.literal('pattern'),
    pattern: z.string().min(1).describe('A JavaScript regular expression.'),
    flags: z
      .string()
      .regex(/^[imsu]*$/, 'only i, m, s, u')
      .default(''),
    target: z.enum(['prediction', 'action']).default('prediction'),
  })
  // Compiled here, so that a rule set that cannot run is refused when it is validated or saved,
  // naming the field, instead of failing every reward, preview and scoring run that uses it.
  .superRefine((rule, ctx) => {
    const compiled = compilePattern(rule.pattern, rule.flags);
    if (typeof compiled === 'string') {
      ctx.addIssue({ code: 'custom', path: ['pattern'], message: compiled });
    }
  })
  .describe('1 when the target text matches the pattern, else 0.');

/** A pattern rule's expression, or why it does not compile (e.g. "… Unterminated group"). */
export function compilePattern(pattern: string, flags: string): RegExp | string {
  try {
    return new RegExp(pattern, flags);
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    return `not a valid regular expression: ${message}`;
  }
}

export const CustomRule = z
  .strictObject({
    ...ruleFields,
    type: z.literal('custom'),
    language: z.enum(['javascript', 'typescript']).default('javascript'),
    source: z
      .string()
      .min(1)
      .describe(
        'Defines `function score(item)` returning a number in [0, 1], null (n/a) or {score, detail}. `item` has prediction, reference, history, action, domain, tool.',
      ),
    timeoutMs: z.number().int().min(1).max(10_000).default(200),
    memoryMb: z.number().int().min(1).max(256).default(32),
  })
  .describe('Your own rule, run in a wasm sandbox with time and memory limits and no host access.');

export const Rule = z.discriminatedUnion('type', [
  MetricRule,
  ContentRule,
  PatternRule,
  CustomRule,
]);
export type Rule = z.infer<typeof Rule>;
export type MetricRule = z.infer<typeof MetricRule>;
export type ContentRule = z.infer<typeof ContentRule>;
export type PatternRule = z.infer<typeof PatternRule>;
export type CustomRule = z.infer<typeof CustomRule>;

export const CRITERION_CATEGORIES = ['essential', 'important', 'optional', 'pitfall'] as const;
export const CriterionCategory = z.enum(CRITERION_CATEGORIES);
export type CriterionCategory = z.infer<typeof CriterionCategory>;

/** Weights per category when a criterion gives none (Rubrics-as-Rewards' ordering; pitfalls negative). */
export const CATEGORY_WEIGHTS: Record<CriterionCategory, number> = {
  essential: 1,
  important: 0.7,
  optional: 0.3,
  pitfall: -0.9,
};

export const Scale = z
  .strictObject({
    min: z.number().int().default(0),
    max: z.number().int().default(1),
    labels: z
      .record(z.string(), z.string())
      .optional()
      .describe('What each point of the scale means, keyed by the number.'),
  })
  .refine((scale) => scale.max > scale.min, {
    message: 'max must be greater than min',
    path: ['max'],
  })
  .describe(
    'Points a judge or labeler gives; normalized to [0, 1] as (value − min) / (max − min).',
  );
export type Scale = z.infer<typeof Scale>;

export const Criterion = z
  .strictObject({
    id: Id,
    text: z
      .string()
      .min(1)
      .describe('What the judge or labeler checks, as a yes/no or a graded question.'),
    category: CriterionCategory.default('important'),
    weight: z
      .number()
      .optional()
      .describe(
        'Overrides the category weight; pitfalls are made negative (|weight| is used with a minus).',
      ),
    scale: Scale.default({ min: 0, max: 1 }),
    rule: z
      .string()
      .optional()
      .describe(
        'Id of a rule that scores this criterion locally; without it a judge (or a labeler) does.',
      ),
  })
  .describe('A rubric criterion: reward = Σ w·c / Σ|w| over the criteria scored.');
export type Criterion = z.infer<typeof Criterion>;

export const Combine = z
  .strictObject({
    rules: z
      .number()
      .min(0)
      .default(1)
      .describe('Weight of the rule part (weighted mean of the rules).'),
    criteria: z
      .number()
      .min(0)
      .default(1)
      .describe('Weight of the rubric part (Σ w·c / Σ|w|, clipped to [0, 1]); 0 skips the judge.'),
    gate: z
      .string()
      .optional()
      .describe(
        'Id of a rule that must score > 0, else the whole item scores 0 (e.g. valid JSON).',
      ),
  })
  .describe(
    'Hybrid score = (rules·R + criteria·C) / (rules + criteria) over the parts that have a score.',
  );
export type Combine = z.infer<typeof Combine>;

const RuleSetShape = z
  .strictObject({
    $schema: z.string().optional(),
    name: Id.describe('Name of the rule set; versions are kept per name.'),
    description: z.string().optional(),
    domain: z
      .string()
      .optional()
      .describe('The domain this rule set is written for (informational).'),
    rules: z.array(Rule).default([]),
    criteria: z.array(Criterion).default([]),
    combine: Combine.default({ rules: 1, criteria: 1 }),
  })
  .describe('A Terrarium rule set: rules and rubric criteria combined into one hybrid score.');

/** A rule set document as users write it (YAML or JSON), with cross-references checked. */
export const RuleSet = RuleSetShape.superRefine((set, ctx) => {
  const ruleIds = new Set<string>();
  set.rules.forEach((rule, i) => {
    if (ruleIds.has(rule.id))
      ctx.addIssue({
        code: 'custom',
        message: `duplicate rule id ${rule.id}`,
        path: ['rules', i, 'id'],
      });
    ruleIds.add(rule.id);
  });
  const criterionIds = new Set<string>();
  set.criteria.forEach((criterion, i) => {
    if (criterionIds.has(criterion.id) || ruleIds.has(criterion.id))
      ctx.addIssue({
        code: 'custom',
        message: `duplicate id ${criterion.id}`,
        path: ['criteria', i, 'id'],
      });
    criterionIds.add(criterion.id);
    if (criterion.rule !== undefined && !ruleIds.has(criterion.rule))
      ctx.addIssue({
        code: 'custom',
        message: `no rule ${criterion.rule}`,
        path: ['criteria', i, 'rule'],
      });
  });
  if (set.combine.gate !== undefined && !ruleIds.has(set.combine.gate))
    ctx.addIssue({
      code: 'custom',
      message: `no rule ${set.combine.gate}`,
      path: ['combine', 'gate'],
    });
  if (set.rules.length === 0 && set.criteria.length === 0)
    ctx.addIssue({
      code: 'custom',
      message: 'a rule set needs at least one rule or criterion',
      path: ['rules'],
    });
});
export type RuleSet = z.infer<typeof RuleSet>;
/** What a user may write: defaults filled in by parsing. */
export type RuleSetInput = z.input<typeof RuleSet>;
