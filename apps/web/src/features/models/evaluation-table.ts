import { formatScore } from '../../app/format';

/** One mean with its 95% bootstrap interval, as models/evaluate.ts writes them. */
export interface Interval {
  mean: number;
  low: number;
  high: number;
}

export interface SimulatorFigures {
  transitions: number;
  content: Interval;
  tokenF1: Interval;
  /** Answered with the first neighbor's answer, whole: the model's context could not hold it. */
  neighborAnswers?: number;
}

/** The simulators of the evaluation, in the order the table shows them, with what they mean. */
export const EVALUATED: readonly { key: string; label: string }[] = [
  {
    key: 'model',
    label:
      'model (as served: neighbors, earlier transition, JSON held, leaning on the first neighbor)',
  },
  { key: 'retrieval', label: 'retrieval alone' },
  { key: 'model-no-context', label: 'model without retrieved neighbors' },
];

/** Columns: the known simulators first, then any other the file has, by name. */
export function evaluatedColumns(
  bySource: Readonly<Record<string, Readonly<Record<string, SimulatorFigures>>>>,
): { key: string; label: string }[] {
  const present = new Set(Object.values(bySource).flatMap((row) => Object.keys(row)));
  const known = EVALUATED.filter((column) => present.has(column.key));
  const others = [...present]
    .filter((key) => !EVALUATED.some((column) => column.key === key))
    .toSorted()
    .map((key) => ({ key, label: key }));
  return [...known, ...others];
}

/**
 * The model against retrieval on one score: above or below only when the 95% intervals do not
 * overlap, so a difference inside the noise is never called one.
 */
export function versusRetrieval(
  model: Interval | undefined,
  retrieval: Interval | undefined,
): 'above' | 'below' | 'intervals overlap' | null {
  if (model === undefined || retrieval === undefined) return null;
  if (model.low > retrieval.high) return 'above';
  if (model.high < retrieval.low) return 'below';
  return 'intervals overlap';
}

/** A score's mean and 95% interval, on the 0-100 scale every page shows (`formatScore`). */
export function formatInterval(interval: Interval): string {
  return `${formatScore(interval.mean)} [${formatScore(interval.low)}, ${formatScore(interval.high)}]`;
}
