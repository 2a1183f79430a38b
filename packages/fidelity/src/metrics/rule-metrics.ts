import { canonicalJson } from '../text/json-value';
import { collapseWhitespace } from '../text/normalize';
import type { ScoringContext } from '../types';
import { looksLikeError } from './error-signal';
import { numericCloseness } from './numeric';
import { editSimilarity, lengthRatio, multisetF1, rougeL } from './overlap';
import { PreparedText } from './prepared';

/**
 * Rule metrics: cheap, deterministic, each a number in [0, 1] per item, or null when the metric does
 * not apply to the item (then it is left out of means, never counted as 0 or 1):
 * - JSON metrics apply only when the real observation is a JSON object or array;
 * - numeric closeness applies only when the real observation contains a number.
 */
export type MetricValue = number | null;
type PreparedMetric = (
  predicted: PreparedText,
  real: PreparedText,
  context: ScoringContext,
) => MetricValue;

function exactMatch(predicted: PreparedText, real: PreparedText): MetricValue {
  return predicted.raw === real.raw ? 1 : 0;
}

/** Whitespace collapsed, CRLF → LF, ANSI escapes stripped, and JSON compared with keys sorted. */
export function normalizeObservation(text: PreparedText | string): string {
  const prepared = typeof text === 'string' ? new PreparedText(text) : text;
  const json = prepared.json;
  return json === null ? collapseWhitespace(prepared.clean) : canonicalJson(json.value);
}

function normalizedMatch(predicted: PreparedText, real: PreparedText): MetricValue {
  return normalizeObservation(predicted) === normalizeObservation(real) ? 1 : 0;
}

function jsonValidity(predicted: PreparedText, real: PreparedText): MetricValue {
  if (real.json === null) return null;
  return predicted.json === null ? 0 : 1;
}

function jsonStructure(predicted: PreparedText, real: PreparedText): MetricValue {
  const realShape = real.shape;
  if (realShape === null) return null;
  const predictedShape = predicted.shape;
  if (predictedShape === null) return 0;
  let common = 0;
  for (const path of realShape.typedPaths) if (predictedShape.typedPaths.has(path)) common++;
  return common / (realShape.typedPaths.size + predictedShape.typedPaths.size - common);
}

function leafValueF1(predicted: PreparedText, real: PreparedText): MetricValue {
  const realShape = real.shape;
  if (realShape === null) return null;
  const predictedShape = predicted.shape;
  if (predictedShape === null) return 0;
  const leaves = (shape: typeof realShape) =>
    shape.leaves.map((leaf) => `${leaf.path}=${leaf.text}`);
  return multisetF1(leaves(predictedShape), leaves(realShape));
}

/** Numbers aligned by JSON path when both are JSON, else by position; extra or missing ones score 0. */
function numericClosenessMetric(predicted: PreparedText, real: PreparedText): MetricValue {
  const realShape = real.shape;
  const predictedShape = predicted.shape;
  if (realShape !== null && predictedShape !== null) {
    const realNumbers = realShape.leaves.filter((leaf) => leaf.number !== null);
    if (realNumbers.length === 0) return null;
    const predictedByPath = new Map<string, number>();
    for (const leaf of predictedShape.leaves)
      if (leaf.number !== null) predictedByPath.set(leaf.path, leaf.number);
    let credit = 0;
    for (const leaf of realNumbers) {
      const other = predictedByPath.get(leaf.path);
      if (other !== undefined && leaf.number !== null)
        credit += numericCloseness(other, leaf.number);
    }
    return credit / Math.max(realNumbers.length, predictedByPath.size);
  }
  const realNumbers = real.numbers;
  if (realNumbers.length === 0) return null;
  const predictedNumbers = predicted.numbers;
  let credit = 0;
  const paired = Math.min(realNumbers.length, predictedNumbers.length);
  for (let i = 0; i < paired; i++)
    credit += numericCloseness(predictedNumbers[i] ?? 0, realNumbers[i] ?? 0);
  return credit / Math.max(realNumbers.length, predictedNumbers.length);
}

/**
 * Applies only where a failure is in play on either side: most real observations are not failures,
 * and scoring "neither failed" as 1 would credit any non-error answer, garbage included. Its mean over
 * a run is then the Jaccard index of the failure sets: both / (both + only real + only predicted).
 */
function errorAgreement(
  predicted: PreparedText,
  real: PreparedText,
  context: ScoringContext,
): MetricValue {
  const realIsError = context.kind === 'error' || looksLikeError(real.clean);
  const predictedIsError = looksLikeError(predicted.clean);
  if (!realIsError && !predictedIsError) return null;
  return realIsError && predictedIsError ? 1 : 0;
}

export const RULE_METRIC_IDS = [
  'exact-match',
  'normalized-match',
  'json-validity',
  'json-structure',
  'leaf-value-f1',
  'numeric-closeness',
  'error-agreement',
  'token-f1',
  'rouge-l',
  'edit-similarity',
  'length-ratio',
] as const;
export type RuleMetricId = (typeof RULE_METRIC_IDS)[number];

export interface RuleMetric {
  id: RuleMetricId;
  label: string;
  /** One line for hover text and `rules` listings; scores are shown 0-100, so it says "full marks", not 1. */
  description: string;
  fn: (predicted: string, real: string, context?: ScoringContext) => MetricValue;
}

type Definition = Omit<RuleMetric, 'fn' | 'id'> & { prepared: PreparedMetric };

const DEFINITIONS: Record<RuleMetricId, Definition> = {
  'exact-match': {
    label: 'Exact match',
    description:
      'Full marks when the prediction equals the real observation byte for byte, else none.',
    prepared: exactMatch,
  },
  'normalized-match': {
    label: 'Normalized match',
    description:
      'Full marks when equal after CRLF → LF, ANSI escapes stripped and whitespace collapsed (JSON compared with keys sorted), else none.',
    prepared: normalizedMatch,
  },
  'json-validity': {
    label: 'JSON validity',
    description:
      'When the real observation is a JSON object or array: full marks if the prediction parses as one, else none. Otherwise n/a.',
    prepared: jsonValidity,
  },
  'json-structure': {
    label: 'JSON structure',
    description:
      'Jaccard of typed paths (array indices collapsed, e.g. flights[].price:number); none if the prediction is not JSON; n/a when the real one is not.',
    prepared: jsonStructure,
  },
  'leaf-value-f1': {
    label: 'Leaf-value F1',
    description:
      'F1 over the multisets of path=value leaves; n/a when the real observation is not JSON.',
    prepared: leafValueF1,
  },
  'numeric-closeness': {
    label: 'Numeric closeness',
    description:
      'Numbers paired by JSON path (else by position): full credit within 10% relative error, none at 100%; unpaired numbers score none. n/a without real numbers.',
    prepared: numericClosenessMetric,
  },
  'error-agreement': {
    label: 'Error agreement',
    description:
      'When either side reports a failure (error messages, tracebacks, non-zero exit codes, "command not found", SQL errors): full marks if both do. n/a when neither does, so its mean is the Jaccard index of the two sides\' failures and its n differs between simulators.',
    prepared: errorAgreement,
  },
  'token-f1': {
    label: 'Token F1',
    description: 'F1 over multisets of word and punctuation tokens, case kept.',
    prepared: (predicted, real) => multisetF1(predicted.tokens, real.tokens),
  },
  'rouge-l': {
    label: 'ROUGE-L',
    description:
      'F1 of the longest common token subsequence; exact up to 2M token pairs, above that anchored on unique tokens with a banded fallback (a lower bound).',
    prepared: (predicted, real) => rougeL(predicted.tokens, real.tokens),
  },
  'edit-similarity': {
    label: 'Edit similarity',
    description:
      '1 − Levenshtein / longer length, bit-parallel (Myers 1999); exact up to 2M character pairs, above that anchored on unique words with a banded fallback (a lower bound).',
    prepared: (predicted, real) => editSimilarity(predicted.raw, real.raw),
  },
  'length-ratio': {
    label: 'Length ratio',
    description: 'Shorter length / longer length, in UTF-16 code units; both empty: full marks.',
    prepared: (predicted, real) => lengthRatio(predicted.raw, real.raw),
  },
};

export const RULE_METRICS: readonly RuleMetric[] = RULE_METRIC_IDS.map((id) => {
  const { label, description, prepared } = DEFINITIONS[id];
  return {
    id,
    label,
    description,
    fn: (predicted: string, real: string, context: ScoringContext = {}) =>
      prepared(new PreparedText(predicted), new PreparedText(real), context),
  };
});

/** Every rule metric of one item, parsing each text once. */
export function scoreRules(
  predicted: string,
  real: string,
  context: ScoringContext = {},
): Record<RuleMetricId, MetricValue> {
  const predictedText = new PreparedText(predicted);
  const realText = new PreparedText(real);
  const run = (id: RuleMetricId) => DEFINITIONS[id].prepared(predictedText, realText, context);
  return {
    'exact-match': run('exact-match'),
    'normalized-match': run('normalized-match'),
    'json-validity': run('json-validity'),
    'json-structure': run('json-structure'),
    'leaf-value-f1': run('leaf-value-f1'),
    'numeric-closeness': run('numeric-closeness'),
    'error-agreement': run('error-agreement'),
    'token-f1': run('token-f1'),
    'rouge-l': run('rouge-l'),
    'edit-similarity': run('edit-similarity'),
    'length-ratio': run('length-ratio'),
  };
}
