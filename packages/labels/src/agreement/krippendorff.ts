/** A rating: a number on a scale, or a category name. */
export type RatingValue = number | string;

export const MEASUREMENT_LEVELS = ['nominal', 'ordinal', 'interval', 'ratio'] as const;
export type MeasurementLevel = (typeof MEASUREMENT_LEVELS)[number];

/**
 * Krippendorff's α for any number of raters with missing values (Krippendorff 2011, "Computing
 * Krippendorff's Alpha-Reliability"). `units` holds, per unit, the values its raters gave (missing
 * ones simply absent or null); units with fewer than two values are not pairable and are left out.
 *
 * Returns null when α is undefined: no pairable unit, a single value overall (no expected
 * disagreement), or interval/ratio levels asked of category names. Ordinal ranks strings by code
 * units; give numbers for a scale.
 */
export function krippendorffAlpha(
  units: readonly (readonly (RatingValue | null)[])[],
  level: MeasurementLevel,
): number | null {
  const pairable = pairableUnits(units);
  if (pairable.length === 0) return null;
  const numeric = pairable.every((unit) => unit.every((value) => typeof value === 'number'));
  if ((level === 'interval' || level === 'ratio') && !numeric) return null;

  // The value domain, ordered (numbers numerically; strings by code units).
  const domain = [...new Set(pairable.flat())].toSorted((a, b) =>
    typeof a === 'number' && typeof b === 'number' ? a - b : String(a) < String(b) ? -1 : 1,
  );
  const index = new Map(domain.map((value, i) => [value, i]));
  const size = domain.length;
  const coincidence = Array.from({ length: size }, () => new Float64Array(size));
  for (const unit of pairable) {
    const counts = new Map<number, number>();
    for (const value of unit) {
      const i = index.get(value) ?? 0;
      counts.set(i, (counts.get(i) ?? 0) + 1);
    }
    const share = 1 / (unit.length - 1);
    for (const [c, nc] of counts)
      for (const [k, nk] of counts) {
        const row = coincidence[c];
        if (row !== undefined) row[k] = (row[k] ?? 0) + share * (c === k ? nc * (nc - 1) : nc * nk);
      }
  }
  const marginals = coincidence.map((row) => row.reduce((sum, value) => sum + value, 0));
  const total = marginals.reduce((sum, value) => sum + value, 0);
  const distance = distanceFor(level, domain, marginals);
  let observed = 0;
  let expected = 0;
  for (let c = 0; c < size; c++)
    for (let k = 0; k < size; k++) {
      const delta = distance(c, k);
      if (delta === 0) continue;
      observed += (coincidence[c]?.[k] ?? 0) * delta;
      expected += (marginals[c] ?? 0) * (marginals[k] ?? 0) * delta;
    }
  if (expected === 0) return null;
  return 1 - ((total - 1) * observed) / expected;
}

function pairableUnits(units: readonly (readonly (RatingValue | null)[])[]): RatingValue[][] {
  return units
    .map((unit) => unit.filter((value): value is RatingValue => value !== null))
    .filter((unit) => unit.length >= 2);
}

/**
 * Why α is undefined at every measurement level for these units, or null when it is defined at
 * some level: what a report prints in place of a number that would otherwise read as "no data".
 */
export function alphaUndefinedReason(
  units: readonly (readonly (RatingValue | null)[])[],
): string | null {
  const pairable = pairableUnits(units);
  if (pairable.length === 0) return 'no item has two labels: α undefined (nothing to compare)';
  // One value overall leaves no expected disagreement to divide by, at any level.
  if (new Set(pairable.flat()).size === 1) {
    return 'all labels identical: α undefined (no variance)';
  }
  return null;
}

/** δ² between the c-th and k-th values of the domain. */
function distanceFor(
  level: MeasurementLevel,
  domain: readonly RatingValue[],
  marginals: readonly number[],
): (c: number, k: number) => number {
  const numberAt = (i: number) => {
    const value = domain[i];
    return typeof value === 'number' ? value : NaN;
  };
  switch (level) {
    case 'nominal':
      return (c, k) => (c === k ? 0 : 1);
    case 'ordinal': {
      // Cumulative marginals, so the sum of n_g for g between c and k is a difference.
      const cumulative = [0];
      for (const n of marginals) cumulative.push((cumulative.at(-1) ?? 0) + n);
      return (c, k) => {
        if (c === k) return 0;
        const low = Math.min(c, k);
        const high = Math.max(c, k);
        const between = (cumulative[high + 1] ?? 0) - (cumulative[low] ?? 0);
        return (between - ((marginals[c] ?? 0) + (marginals[k] ?? 0)) / 2) ** 2;
      };
    }
    case 'interval':
      return (c, k) => (numberAt(c) - numberAt(k)) ** 2;
    case 'ratio':
      return (c, k) => {
        const sum = numberAt(c) + numberAt(k);
        return sum === 0 ? 0 : ((numberAt(c) - numberAt(k)) / sum) ** 2;
      };
  }
}
