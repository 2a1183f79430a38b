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
  const values = new Float64Array(MEASUREMENT_LEVELS.length);
  weightedAlpha(units)(new Float64Array(units.length).fill(1), values);
  const value = values[MEASUREMENT_LEVELS.indexOf(level)] ?? NaN;
  return Number.isNaN(value) ? null : value;
}

/** α from the sums of observed and expected disagreement; NaN when none is expected. */
function alphaOf(total: number, observed: number, expected: number): number {
  return expected === 0 ? NaN : 1 - ((total - 1) * observed) / expected;
}

/** α at every level, in `MEASUREMENT_LEVELS` order, NaN where undefined. */
export type WeightedAlpha = (weights: ArrayLike<number>, values: Float64Array) => void;

/**
 * α at every measurement level of the units, each counted as many times as its weight says: what
 * a bootstrap asks once per resample (a unit drawn twice weighs 2, one not drawn 0). The work that
 * does not change between resamples is done once here: the value domain, each unit's share of the
 * coincidence matrix, and the interval and ratio distances. A call then only sums the drawn
 * units' shares into one reused matrix and reads all four levels off it, so it sorts nothing and
 * allocates nothing. Gives what `krippendorffAlpha` gave on the units repeated by their weights:
 * values absent from a resample have no marginal, so they add nothing to any sum, ordinal's
 * cumulative ones included.
 */
export function weightedAlpha(units: readonly (readonly (RatingValue | null)[])[]): WeightedAlpha {
  const present = units.map((unit) => unit.filter((value): value is RatingValue => value !== null));
  const domain = [...new Set(present.filter((unit) => unit.length >= 2).flat())].toSorted((a, b) =>
    typeof a === 'number' && typeof b === 'number' ? a - b : String(a) < String(b) ? -1 : 1,
  );
  const index = new Map(domain.map((value, i) => [value, i]));
  const size = domain.length;
  // Each pairable unit's coincidences as (cell, amount) entries, units one after another.
  const starts = new Int32Array(units.length + 1);
  const cells: number[] = [];
  const amounts: number[] = [];
  // Whether a pairable unit holds a category name: interval and ratio are undefined with one in.
  const named = new Uint8Array(units.length);
  present.forEach((unit, u) => {
    if (unit.length >= 2) {
      const counts = new Map<number, number>();
      for (const value of unit) {
        const i = index.get(value) ?? 0;
        counts.set(i, (counts.get(i) ?? 0) + 1);
      }
      const share = 1 / (unit.length - 1);
      for (const [c, nc] of counts)
        for (const [k, nk] of counts) {
          const amount = share * (c === k ? nc * (nc - 1) : nc * nk);
          if (amount !== 0) {
            cells.push(c * size + k);
            amounts.push(amount);
          }
        }
      if (unit.some((value) => typeof value !== 'number')) named[u] = 1;
    }
    starts[u + 1] = cells.length;
  });
  const cellOf = Int32Array.from(cells);
  const amountOf = Float64Array.from(amounts);
  const numberAt = (i: number) => {
    const value = domain[i];
    return typeof value === 'number' ? value : NaN;
  };
  const intervalDistance = new Float64Array(size * size);
  const ratioDistance = new Float64Array(size * size);
  for (let c = 0; c < size; c++)
    for (let k = 0; k < size; k++) {
      const difference = numberAt(c) - numberAt(k);
      const sum = numberAt(c) + numberAt(k);
      intervalDistance[c * size + k] = difference ** 2;
      ratioDistance[c * size + k] = sum === 0 ? 0 : (difference / sum) ** 2;
    }
  const coincidence = new Float64Array(size * size);
  const marginals = new Float64Array(size);
  // cumulative[i]: the marginals of the values below the i-th, for ordinal distances.
  const cumulative = new Float64Array(size + 1);

  return (weights, values) => {
    values.fill(NaN);
    coincidence.fill(0);
    let names = 0;
    for (let u = 0; u < units.length; u++) {
      const weight = weights[u] ?? 0;
      if (weight === 0) continue;
      const end = starts[u + 1] ?? 0;
      for (let e = starts[u] ?? 0; e < end; e++) {
        const cell = cellOf[e] ?? 0;
        coincidence[cell] = (coincidence[cell] ?? 0) + weight * (amountOf[e] ?? 0);
      }
      if (named[u] === 1) names += weight;
    }
    let total = 0;
    for (let c = 0; c < size; c++) {
      let sum = 0;
      for (let k = 0; k < size; k++) sum += coincidence[c * size + k] ?? 0;
      marginals[c] = sum;
      cumulative[c + 1] = (cumulative[c] ?? 0) + sum;
      total += sum;
    }
    // No pairable unit drawn: nothing to compare.
    if (total === 0) return;
    let nominalObserved = 0;
    let nominalExpected = 0;
    let ordinalObserved = 0;
    let ordinalExpected = 0;
    let intervalObserved = 0;
    let intervalExpected = 0;
    let ratioObserved = 0;
    let ratioExpected = 0;
    for (let c = 0; c < size; c++) {
      const nc = marginals[c] ?? 0;
      if (nc === 0) continue;
      for (let k = 0; k < size; k++) {
        const nk = marginals[k] ?? 0;
        if (k === c || nk === 0) continue;
        const cell = c * size + k;
        const observed = coincidence[cell] ?? 0;
        const expected = nc * nk;
        nominalObserved += observed;
        nominalExpected += expected;
        const low = Math.min(c, k);
        const high = Math.max(c, k);
        const between = (cumulative[high + 1] ?? 0) - (cumulative[low] ?? 0);
        const ordinal = (between - (nc + nk) / 2) ** 2;
        ordinalObserved += observed * ordinal;
        ordinalExpected += expected * ordinal;
        intervalObserved += observed * (intervalDistance[cell] ?? 0);
        intervalExpected += expected * (intervalDistance[cell] ?? 0);
        ratioObserved += observed * (ratioDistance[cell] ?? 0);
        ratioExpected += expected * (ratioDistance[cell] ?? 0);
      }
    }
    values[0] = alphaOf(total, nominalObserved, nominalExpected);
    values[1] = alphaOf(total, ordinalObserved, ordinalExpected);
    // Distances between category names do not exist.
    values[2] = names > 0 ? NaN : alphaOf(total, intervalObserved, intervalExpected);
    values[3] = names > 0 ? NaN : alphaOf(total, ratioObserved, ratioExpected);
  };
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
