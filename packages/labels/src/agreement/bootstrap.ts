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
  const resamples = options.resamples ?? 1000;
  const confidence = options.confidence ?? 0.95;
  const next = random(options.seed ?? 1);
  const estimate = statistic(units);
  const values: number[] = [];
  for (let r = 0; r < resamples && units.length > 0; r++) {
    const sample: T[] = [];
    for (let i = 0; i < units.length; i++) {
      const unit = units[Math.floor(next() * units.length)];
      if (unit !== undefined) sample.push(unit);
    }
    const value = statistic(sample);
    if (value !== null && Number.isFinite(value)) values.push(value);
  }
  if (values.length < Math.max(2, resamples / 2))
    return { estimate, low: null, high: null, resamples };
  values.sort((a, b) => a - b);
  const quantile = (q: number) =>
    values[Math.min(values.length - 1, Math.floor(q * values.length))] ?? null;
  const tail = (1 - confidence) / 2;
  return { estimate, low: quantile(tail), high: quantile(1 - tail), resamples };
}
