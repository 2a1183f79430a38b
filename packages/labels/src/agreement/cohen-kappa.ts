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
  const values = new Float64Array(2);
  weightedKappa(pairs)(new Float64Array(pairs.length).fill(1), values);
  const value = values[weighting === 'none' ? 0 : 1] ?? NaN;
  return Number.isNaN(value) ? null : value;
}

/** κ unweighted into `values[0]`, quadratic into `values[1]`; NaN where undefined. */
export type WeightedKappa = (weights: ArrayLike<number>, values: Float64Array) => void;

/**
 * Cohen's κ, unweighted and quadratic, of the pairs each counted as many times as its weight says
 * (a bootstrap's resample: 0 for a pair not drawn, 2 for one drawn twice). The categories and each
 * pair's cell are found once; a call fills one reused matrix. Quadratic weights rank only the
 * categories present in the weighted pairs, as κ of those pairs written out would.
 */
export function weightedKappa(
  pairs: readonly (readonly [RatingValue, RatingValue])[],
): WeightedKappa {
  const categories = orderedCategories(pairs.flat());
  const k = categories.length;
  const index = new Map(categories.map((value, i) => [value, i]));
  const rowOf = Int32Array.from(pairs, ([a]) => index.get(a) ?? 0);
  const columnOf = Int32Array.from(pairs, ([, b]) => index.get(b) ?? 0);
  const matrix = new Float64Array(k * k);
  const rows = new Float64Array(k);
  const columns = new Float64Array(k);
  const rank = new Int32Array(k);
  return (weights, values) => {
    values.fill(NaN);
    matrix.fill(0);
    rows.fill(0);
    columns.fill(0);
    let n = 0;
    for (let p = 0; p < pairs.length; p++) {
      const weight = weights[p] ?? 0;
      if (weight === 0) continue;
      const row = rowOf[p] ?? 0;
      const column = columnOf[p] ?? 0;
      matrix[row * k + column] = (matrix[row * k + column] ?? 0) + weight;
      rows[row] = (rows[row] ?? 0) + weight;
      columns[column] = (columns[column] ?? 0) + weight;
      n += weight;
    }
    if (n === 0) return;
    let present = 0;
    for (let i = 0; i < k; i++) {
      rank[i] = present;
      if ((rows[i] ?? 0) + (columns[i] ?? 0) > 0) present++;
    }
    if (present < 2) return;
    // Integer weights and both sums scaled by n (the (k − 1)² of quadratic weights and the 1/n of
    // chance cancel in the ratio): the sums are exact, so chance-level agreement is exactly 0, not
    // the −2.2e-16 that `1 − observed / expected` in floating point gives (printed "-0.000").
    let observed = 0;
    let expected = 0;
    let observedQuadratic = 0;
    let expectedQuadratic = 0;
    for (let i = 0; i < k; i++)
      for (let j = 0; j < k; j++) {
        if (i === j) continue;
        const cell = (matrix[i * k + j] ?? 0) * n;
        const chance = (rows[i] ?? 0) * (columns[j] ?? 0);
        const quadratic = ((rank[i] ?? 0) - (rank[j] ?? 0)) ** 2;
        observed += cell;
        expected += chance;
        observedQuadratic += quadratic * cell;
        expectedQuadratic += quadratic * chance;
      }
    if (expected !== 0) values[0] = (expected - observed) / expected;
    if (expectedQuadratic !== 0)
      values[1] = (expectedQuadratic - observedQuadratic) / expectedQuadratic;
  };
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
