export interface Interval {
  estimate: number | null;
  /** Percentile bounds of the resampled statistic; null when too few resamples were defined. */
  low: number | null;
  high: number | null;
  resamples: number;
}

export interface BootstrapOptions {
  resamples?: number;
  /** Two-sided coverage, 0.95 by default. */
  confidence?: number;
  /** Fixes the resampling, so the same data always gives the same interval. */
  seed?: number;
}

/**
 * The one resampling every agreement interval uses, on the page and in the CLI alike: an interval
 * is reproducible anywhere only if both draw the same resamples (walk 52: the page's 400 against
 * the CLI's 1,000 gave [0.87, 0.98] beside [0.88, 0.98]).
 */
export const AGREEMENT_BOOTSTRAP: Readonly<Required<BootstrapOptions>> = {
  resamples: 1000,
  confidence: 0.95,
  seed: 1,
};

/** mulberry32: small, fast and good enough to pick resampled units. */
function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

/** The percentile interval of the defined resampled values (sorted in place). */
function percentileInterval(
  estimate: number | null,
  values: Float64Array,
  resamples: number,
  confidence: number,
): Interval {
  if (values.length < Math.max(2, resamples / 2))
    return { estimate, low: null, high: null, resamples };
  values.sort();
  const quantile = (q: number) =>
    values[Math.min(values.length - 1, Math.floor(q * values.length))] ?? null;
  const tail = (1 - confidence) / 2;
  return { estimate, low: quantile(tail), high: quantile(1 - tail), resamples };
}

/**
 * Percentile bootstrap over units (items): resample the units with replacement, recompute the
 * statistic, and take the quantiles. Units, not single ratings, are resampled because the ratings
 * of one item are not independent.
 */
export function bootstrapInterval<T>(
  units: readonly T[],
  statistic: (sample: readonly T[]) => number | null,
  options: BootstrapOptions = {},
): Interval {
  const resamples = options.resamples ?? AGREEMENT_BOOTSTRAP.resamples;
  const next = random(options.seed ?? AGREEMENT_BOOTSTRAP.seed);
  const estimate = statistic(units);
  const values = new Float64Array(units.length > 0 ? resamples : 0);
  let defined = 0;
  for (let r = 0; r < resamples && units.length > 0; r++) {
    const sample: T[] = [];
    for (let i = 0; i < units.length; i++) {
      const unit = units[Math.floor(next() * units.length)];
      if (unit !== undefined) sample.push(unit);
    }
    const value = statistic(sample);
    if (value !== null && Number.isFinite(value)) values[defined++] = value;
  }
  return percentileInterval(
    estimate,
    values.subarray(0, defined),
    resamples,
    options.confidence ?? AGREEMENT_BOOTSTRAP.confidence,
  );
}

/**
 * Intervals of several statistics from the same resamples of `unitCount` units, drawn as
 * `bootstrapInterval` draws them (so with one statistic the intervals are the same, up to
 * floating-point rounding). Each resample reaches `evaluate` as how many times every unit was
 * drawn, not as a list of units: a statistic that is a sum over units (α's coincidences, κ's
 * confusion counts) then adds each unit's precomputed share times its count, allocating nothing,
 * which is what makes thousands of resamples cheap. `evaluate` writes the i-th statistic's value
 * into `values[i]`, or leaves the NaN there when it is undefined on that resample.
 */
export function bootstrapIntervals(
  unitCount: number,
  estimates: readonly (number | null)[],
  evaluate: (counts: Int32Array, values: Float64Array) => void,
  options: BootstrapOptions = {},
): Interval[] {
  const resamples = options.resamples ?? AGREEMENT_BOOTSTRAP.resamples;
  const next = random(options.seed ?? AGREEMENT_BOOTSTRAP.seed);
  const statistics = estimates.length;
  const drawn = Array.from(
    { length: statistics },
    () => new Float64Array(unitCount > 0 ? resamples : 0),
  );
  const defined = new Int32Array(statistics);
  const counts = new Int32Array(unitCount);
  const values = new Float64Array(statistics);
  // No unit, no resample: every interval is then left open.
  const rounds = unitCount > 0 ? resamples : 0;
  for (let r = 0; r < rounds; r++) {
    counts.fill(0);
    for (let i = 0; i < unitCount; i++) {
      const unit = Math.floor(next() * unitCount);
      counts[unit] = (counts[unit] ?? 0) + 1;
    }
    values.fill(NaN);
    evaluate(counts, values);
    for (let s = 0; s < statistics; s++) {
      const value = values[s] ?? NaN;
      const into = drawn[s];
      if (Number.isFinite(value) && into !== undefined) {
        into[defined[s] ?? 0] = value;
        defined[s] = (defined[s] ?? 0) + 1;
      }
    }
  }
  const confidence = options.confidence ?? AGREEMENT_BOOTSTRAP.confidence;
  return estimates.map((estimate, s) =>
    percentileInterval(
      estimate,
      drawn[s]?.subarray(0, defined[s] ?? 0) ?? new Float64Array(0),
      resamples,
      confidence,
    ),
  );
}
