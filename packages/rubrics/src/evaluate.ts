import {
  CLASS_WEIGHTS,
  CONTENT_CLASSES,
  RULE_METRICS,
  classifyObservation,
  scoreClassified,
  scoreRules,
  type ClassifiedObservation,
  type ContentClassScore,
  type HistoryTurn,
  type MetricValue,
  type RuleMetricId,
} from '@terrarium/fidelity';
import type { ObservationKind } from '@terrarium/schema';
import {
  CATEGORY_WEIGHTS,
  compilePattern,
  type ContentRule,
  type Criterion,
  type CustomRule,
  type Rule,
  type RuleSet,
} from './rule-set';

/** The most items one preview scores: enough to see what a rule set does, few enough to answer while editing. */
export const MAX_PREVIEW_ITEMS = 200;

/** Fidelity's factor for a contradicted deterministic value (content/score.ts), used when re-weighting. */
export const DEFAULT_CONTRADICTION_FACTOR = 0.75;

/** What a rule set scores: a prediction against a reference, with the context that produced it. */
export interface RewardItem {
  prediction: string;
  reference: string;
  history?: readonly HistoryTurn[];
  action?: string;
  domain?: string;
  /** Kind of the reference observation when known (`error` marks a failure). */
  kind?: ObservationKind | null;
}

export interface BreakdownEntry {
  id: string;
  kind: 'rule' | 'criterion';
  /** In [0, 1]; null when the entry does not apply to the item (left out, never counted as 0). */
  score: number | null;
  /** Rules: their weight in the rule part; criteria: the signed weight (pitfalls negative). */
  weight: number;
  detail?: string;
}

export interface ItemReward {
  /** The hybrid score in [0, 1]; null when nothing in the rule set applies to the item (n/a). */
  score: number | null;
  breakdown: BreakdownEntry[];
}

/** What a custom rule's sandbox sees of an item: plain data only. */
export interface CustomRuleInput {
  prediction: string;
  reference: string;
  history: readonly HistoryTurn[];
  action: string;
  domain: string | null;
  tool: string;
}

export interface CustomRuleResult {
  score: number | null;
  detail?: string;
}

/** Scores of the judge-scored criteria of one item, as raw points on each criterion's scale. */
export type CriterionPoints = ReadonlyMap<string, number | null>;

export interface EvaluateOptions {
  /** Runs a custom rule (in a sandbox); required when the rule set has custom rules. Rejects = error. */
  runCustom?: (rule: CustomRule, input: CustomRuleInput) => Promise<CustomRuleResult>;
  /** Scores the criteria no rule scores; without it those criteria are n/a. */
  judge?: (item: RewardItem, criteria: readonly Criterion[]) => Promise<CriterionPoints>;
}

/** The first word of the action: a tool name (`get_user_details {…}`) or a program (`ls -la`). */
export function toolOfAction(action: string): string {
  const match = /^\s*([^\s({]+)/.exec(action);
  return match?.[1] ?? '';
}

function inScope(rule: Rule, item: RewardItem, tool: string): boolean {
  const scope = rule.scope;
  if (scope === undefined) return true;
  if (scope.domains !== undefined && !scope.domains.some((domain) => domain === item.domain))
    return false;
  if (scope.tools !== undefined && !scope.tools.includes(tool)) return false;
  return true;
}

function unit(value: number | null): number | null {
  if (value === null || !Number.isFinite(value)) return null;
  return Math.min(1, Math.max(0, value));
}

/** Threshold, then `not`, as the schema documents. */
function shape(rule: Rule, value: number | null): number | null {
  if (value === null) return null;
  let shaped = value;
  if (rule.threshold !== undefined) shaped = shaped >= rule.threshold ? 1 : 0;
  return rule.not ? 1 - shaped : shaped;
}

function contentValue(rule: ContentRule, content: ContentClassScore): number | null {
  if (rule.class !== undefined) return content.byClass[rule.class]?.score ?? null;
  if (rule.weights === undefined && rule.contradictionFactor === undefined) return content.score;
  let weighted = 0;
  let total = 0;
  for (const cls of CONTENT_CLASSES) {
    const summary = content.byClass[cls];
    if (summary === undefined) continue;
    const weight = rule.weights?.[cls] ?? CLASS_WEIGHTS[cls];
    weighted += weight * summary.score;
    total += weight;
  }
  if (total === 0) return null;
  const factor = rule.contradictionFactor ?? DEFAULT_CONTRADICTION_FACTOR;
  return Math.min(1, weighted / total) * (content.contradictions > 0 ? factor : 1);
}

/** A rule set prepared once (regular expressions compiled) to score any number of items. */
export interface CompiledRuleSet {
  readonly ruleSet: RuleSet;
  /** Criteria a judge must score (no rule behind them), empty when the rubric part weighs 0. */
  readonly judgedCriteria: readonly Criterion[];
  readonly hasCustomRules: boolean;
  /** Scores an item without a judge or custom rules; those entries are n/a. Synchronous. */
  scoreLocally(item: RewardItem): ItemReward;
  score(item: RewardItem, options?: EvaluateOptions): Promise<ItemReward>;
}

/**
 * Classified references kept per compiled rule set. RL trainers score several samples of one prompt
 * (GRPO groups, best-of-n) against the same reference and history: classifying once and scoring each
 * sample (fidelity's `scoreClassified`) roughly halves the content rule's cost for them.
 */
const CLASSIFIED_CACHE_SIZE = 512;

function classificationKey(
  reference: string,
  history: readonly HistoryTurn[],
  action: string,
): string {
  let key = `${reference.length}:${reference}\u0000${action}`;
  for (const turn of history) key += `\u0000${turn.action}\u0001${turn.observation}`;
  return key;
}

export function compileRuleSet(ruleSet: RuleSet): CompiledRuleSet {
  const classified = new Map<string, ClassifiedObservation>();
  function classify(
    reference: string,
    history: readonly HistoryTurn[],
    action: string,
  ): ClassifiedObservation {
    const key = classificationKey(reference, history, action);
    const found = classified.get(key);
    if (found !== undefined) return found;
    const fresh = classifyObservation(reference, history, action);
    if (classified.size >= CLASSIFIED_CACHE_SIZE) {
      const oldest = classified.keys().next().value;
      if (oldest !== undefined) classified.delete(oldest);
    }
    classified.set(key, fresh);
    return fresh;
  }
  const patterns = new Map<string, RegExp>();
  for (const rule of ruleSet.rules) {
    if (rule.type !== 'pattern') continue;
    const compiled = compilePattern(rule.pattern, rule.flags);
    // A parsed rule set's patterns compile (RuleSet refuses the others); a hand-built one may not.
    if (typeof compiled === 'string') throw new Error(`rules.${rule.id}.pattern: ${compiled}`);
    patterns.set(rule.id, compiled);
  }
  const metricRules = ruleSet.rules.filter((rule) => rule.type === 'metric');
  const judgedCriteria =
    ruleSet.combine.criteria > 0 ? ruleSet.criteria.filter((c) => c.rule === undefined) : [];
  const hasCustomRules = ruleSet.rules.some((rule) => rule.type === 'custom');

  /** Every built-in rule of the item; custom ones get `pending` for the caller to fill in. */
  function builtinEntries(item: RewardItem, tool: string): BreakdownEntry[] {
    const history = item.history ?? [];
    const action = item.action ?? '';
    let metrics: Partial<Record<RuleMetricId, MetricValue>> | undefined;
    let content: ContentClassScore | undefined;
    const metricOf = (id: RuleMetricId): MetricValue => {
      if (metrics === undefined) {
        const context = { kind: item.kind ?? null, history, action };
        // All metrics at once parse each text once; a single metric is cheaper on its own.
        metrics =
          metricRules.length > 1
            ? scoreRules(item.prediction, item.reference, context)
            : {
                [id]:
                  RULE_METRICS.find((metric) => metric.id === id)?.fn(
                    item.prediction,
                    item.reference,
                    context,
                  ) ?? null,
              };
      }
      return metrics[id] ?? null;
    };
    return ruleSet.rules.map((rule): BreakdownEntry => {
      const entry = { id: rule.id, kind: 'rule' as const, weight: rule.weight };
      if (!inScope(rule, item, tool)) return { ...entry, score: null, detail: 'out of scope' };
      switch (rule.type) {
        case 'metric':
          return { ...entry, score: shape(rule, unit(metricOf(rule.metric))) };
        case 'content': {
          content ??= scoreClassified(item.prediction, classify(item.reference, history, action));
          const detail =
            content.contradictions > 0
              ? `${content.contradictions} contradicted deterministic value(s)`
              : undefined;
          return {
            ...entry,
            score: shape(rule, unit(contentValue(rule, content))),
            ...(detail === undefined ? {} : { detail }),
          };
        }
        case 'pattern': {
          const target = rule.target === 'action' ? action : item.prediction;
          return { ...entry, score: shape(rule, patterns.get(rule.id)?.test(target) ? 1 : 0) };
        }
        case 'custom':
          return { ...entry, score: null, detail: 'not run' };
      }
    });
  }

  function combine(rules: BreakdownEntry[], points: CriterionPoints): ItemReward {
    let ruleWeighted = 0;
    let ruleTotal = 0;
    for (const entry of rules) {
      if (entry.score === null || entry.weight === 0) continue;
      ruleWeighted += entry.weight * entry.score;
      ruleTotal += entry.weight;
    }
    const byId = new Map(rules.map((entry) => [entry.id, entry]));
    let criterionWeighted = 0;
    let criterionTotal = 0;
    const criteria = ruleSet.criteria.map((criterion): BreakdownEntry => {
      const base = CATEGORY_WEIGHTS[criterion.category];
      const magnitude = Math.abs(criterion.weight ?? base);
      const weight = criterion.category === 'pitfall' ? -magnitude : magnitude;
      const score =
        criterion.rule === undefined
          ? normalizePoints(criterion, points.get(criterion.id) ?? null)
          : (byId.get(criterion.rule)?.score ?? null);
      if (score !== null) {
        criterionWeighted += weight * score;
        criterionTotal += magnitude;
      }
      return { id: criterion.id, kind: 'criterion', score, weight };
    });
    const parts: [number, number][] = [];
    if (ruleTotal > 0 && ruleSet.combine.rules > 0)
      parts.push([ruleSet.combine.rules, ruleWeighted / ruleTotal]);
    if (criterionTotal > 0 && ruleSet.combine.criteria > 0)
      parts.push([
        ruleSet.combine.criteria,
        Math.min(1, Math.max(0, criterionWeighted / criterionTotal)),
      ]);
    let weightSum = 0;
    let sum = 0;
    for (const [weight, value] of parts) {
      weightSum += weight;
      sum += weight * value;
    }
    // Nothing applied (every rule out of scope or without a value, no criterion scored): n/a,
    // never 0, so that a reward, a mean or a trainer never reads "does not apply" as "wrong".
    let score = weightSum > 0 ? sum / weightSum : null;
    const gate = ruleSet.combine.gate === undefined ? undefined : byId.get(ruleSet.combine.gate);
    if (gate?.score !== null && gate?.score !== undefined && gate.score <= 0) score = 0;
    return { score, breakdown: [...rules, ...criteria] };
  }

  return {
    ruleSet,
    judgedCriteria,
    hasCustomRules,
    scoreLocally(item) {
      return combine(builtinEntries(item, toolOfAction(item.action ?? '')), new Map());
    },
    async score(item, options = {}) {
      const tool = toolOfAction(item.action ?? '');
      const entries = builtinEntries(item, tool);
      const input: CustomRuleInput = {
        prediction: item.prediction,
        reference: item.reference,
        history: item.history ?? [],
        action: item.action ?? '',
        domain: item.domain ?? null,
        tool,
      };
      const customRuns = ruleSet.rules.map(async (rule, i) => {
        if (rule.type !== 'custom' || entries[i]?.detail === 'out of scope') return;
        const entry = { id: rule.id, kind: 'rule' as const, weight: rule.weight };
        if (options.runCustom === undefined) {
          entries[i] = { ...entry, score: null, detail: 'custom rules do not run here' };
          return;
        }
        try {
          const result = await options.runCustom(rule, input);
          // A score off [0, 1] is clipped, and the breakdown says so: a rule returning 5 or -1
          // is a bug its author should see, not a silent 1 or 0.
          const raw = result.score;
          const off =
            raw !== null && (raw < 0 || raw > 1)
              ? `returned ${String(raw)}, clipped to ${String(unit(raw))} (a score is in [0, 1])`
              : undefined;
          const detail = [off, result.detail].filter((part) => part !== undefined).join('; ');
          entries[i] = {
            ...entry,
            score: shape(rule, unit(raw)),
            ...(detail === '' ? {} : { detail }),
          };
        } catch (error) {
          // A broken rule earns nothing: a reward must not rise because a check crashed.
          entries[i] = {
            ...entry,
            score: 0,
            detail: `error: ${error instanceof Error ? error.message : String(error)}`,
          };
        }
      });
      const judged =
        judgedCriteria.length > 0 && options.judge !== undefined
          ? options.judge(item, judgedCriteria)
          : Promise.resolve<CriterionPoints>(new Map());
      const [points] = await Promise.all([judged, ...customRuns]);
      return combine(entries, points);
    },
  };
}

/** Raw points → [0, 1] on the criterion's scale; out-of-scale points are clipped. */
export function normalizePoints(criterion: Criterion, points: number | null): number | null {
  if (points === null || !Number.isFinite(points)) return null;
  const { min, max } = criterion.scale;
  return Math.min(1, Math.max(0, (points - min) / (max - min)));
}
