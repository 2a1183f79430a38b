import type { RatingValue } from './krippendorff';

export type KappaWeighting = 'none' | 'quadratic';

/** Categories of two raters' values in order: numbers numerically, strings by code units. */
export function orderedCategories(values: readonly RatingValue[]): RatingValue[] {
  return [...new Set(values)].toSorted((a, b) =>
    typeof a === 'number' && typeof b === 'number' ? a - b : String(a) < String(b) ? -1 : 1,
  );
}

/**
 * Cohen's κ of two raters over the items both rated. Quadratic weights use the categories' ranks
 * in the union of both raters' values, (i − j)² / (k − 1)², as scikit-learn's `cohen_kappa_score`
 * does, so results compare directly. Null when undefined (no pairs, or chance agreement is total).
 */
export function cohenKappa(
  pairs: readonly (readonly [RatingValue, RatingValue])[],
  weighting: KappaWeighting = 'none',
): number | null {
  if (pairs.length === 0) return null;
  const categories = orderedCategories(pairs.flat());
  const k = categories.length;
  if (k < 2) return null;
  const index = new Map(categories.map((value, i) => [value, i]));
  const matrix = Array.from({ length: k }, () => new Float64Array(k));
  for (const [a, b] of pairs) {
    const row = matrix[index.get(a) ?? 0];
    const column = index.get(b) ?? 0;
    if (row !== undefined) row[column] = (row[column] ?? 0) + 1;
  }
  const rows = matrix.map((row) => row.reduce((sum, value) => sum + value, 0));
  const columns = categories.map((_, j) => matrix.reduce((sum, row) => sum + (row[j] ?? 0), 0));
  const n = pairs.length;
  // Integer weights and both sums scaled by n (the (k − 1)² of quadratic weights and the 1/n of
  // chance cancel in the ratio): the sums are exact, so chance-level agreement is exactly 0, not
  // the −2.2e-16 that `1 − observed / expected` in floating point gives (printed "-0.000").
  const weight = (i: number, j: number) =>
    weighting === 'none' ? (i === j ? 0 : 1) : (i - j) ** 2;
  let observed = 0;
  let expected = 0;
  for (let i = 0; i < k; i++)
    for (let j = 0; j < k; j++) {
      const w = weight(i, j);
      observed += w * (matrix[i]?.[j] ?? 0) * n;
      expected += w * (rows[i] ?? 0) * (columns[j] ?? 0);
    }
  if (expected === 0) return null;
  return (expected - observed) / expected;
}

/**
 * Why κ is undefined for these pairs, or null when it is defined: with no pairs there is nothing
 * to compare, and with one value throughout chance agreement is total, leaving nothing to divide
 * by. Those are the only two cases (two or more values give a positive expected disagreement).
 */
export function kappaUndefinedReason(
  pairs: readonly (readonly [RatingValue, RatingValue])[],
): string | null {
  if (pairs.length === 0) return 'no item rated by both: κ undefined (nothing to compare)';
  if (new Set(pairs.flat()).size === 1) return 'all values identical: κ undefined (no variance)';
  return null;
}

export interface ConfusionMatrix {
  /** Row and column labels, ordered. */
  labels: RatingValue[];
  /** counts[i][j]: items rater A put in labels[i] and rater B in labels[j]. */
  counts: number[][];
}

export function confusionMatrix(
  pairs: readonly (readonly [RatingValue, RatingValue])[],
): ConfusionMatrix {
  const labels = orderedCategories(pairs.flat());
  const index = new Map(labels.map((value, i) => [value, i]));
  const counts = labels.map(() => labels.map(() => 0));
  for (const [a, b] of pairs) {
    const row = counts[index.get(a) ?? 0];
    const column = index.get(b) ?? 0;
    if (row !== undefined) row[column] = (row[column] ?? 0) + 1;
  }
  return { labels, counts };
}
