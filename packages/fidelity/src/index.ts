export type { HistoryTurn, ScoringContext } from './types';
export {
  RULE_METRICS,
  RULE_METRIC_IDS,
  scoreRules,
  normalizeObservation,
  type RuleMetric,
  type RuleMetricId,
  type MetricValue,
} from './metrics/rule-metrics';
export { looksLikeError } from './metrics/error-signal';
export { numericCloseness, FULL_CREDIT_ERROR, NO_CREDIT_ERROR } from './metrics/numeric';
export { multisetF1, rougeL, editSimilarity, lengthRatio } from './metrics/overlap';
export { boundedLcs, boundedLevenshtein, EXACT_CELLS, TOTAL_CELLS } from './align/anchored';
export { lcsLength, levenshtein } from './align/bit-parallel';
export { CONTENT_CLASSES, CLASS_WEIGHTS, type ContentClass, type Span } from './content/classes';
export { HistoryIndex, indexHistory } from './content/history-index';
export { classifySpans, classifyObservation, type ClassifiedObservation } from './content/classify';
export {
  scoreContentClasses,
  scoreClassified,
  ORDER_CREDIT,
  type ContentClassScore,
  type ClassScore,
  type SpanVerdict,
} from './content/score';
export { scanTokens, type Token, type TokenKind, type MetadataKind } from './text/tokens';
export { scoringItems, actionText, toolOf, type ScoringItem } from './items';
export {
  PERTURBATIONS,
  PERTURBATION_SEVERITY,
  perturb,
  shiftCharacters,
  type Perturbation,
  type PerturbationInput,
} from './perturbations';
export { spearman, pearson, averageRanks } from './stats';
export {
  CONTENT_METRIC,
  metricDefinition,
  metricLabelOf,
  type MetricDefinition,
  type MetricSource,
} from './metrics/metric-definitions';
