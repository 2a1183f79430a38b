import { spearman } from '@terrarium/fidelity';
import { z } from 'zod';
import { LabelLine } from '../labels-jsonl';
import { bootstrapIntervals, type BootstrapOptions, type Interval } from './bootstrap';
import {
  cohenKappa,
  confusionMatrix,
  kappaUndefinedReason,
  weightedKappa,
  type ConfusionMatrix,
} from './cohen-kappa';
import {
  alphaUndefinedReason,
  MEASUREMENT_LEVELS,
  weightedAlpha,
  type MeasurementLevel,
  type RatingValue,
} from './krippendorff';

/** One rating as scripts write it: `{"item","labeler","criterion"?,"value"}`. */
export const RatingRecord = z.strictObject({
  item: z.union([z.string().min(1), z.number()]).transform(String),
  labeler: z.string().min(1),
  criterion: z.string().min(1).optional(),
  value: z.union([z.number().refine(Number.isFinite, 'a finite number'), z.string().min(1)]),
});
export type RatingRecord = z.infer<typeof RatingRecord>;

/**
 * A line of the file: a rating, or a line of Terrarium's label export (`LabelLine`), whose other
 * fields are read past. Still strict, so that a misspelt key is said rather than ignored.
 */
const RatingLine = z.strictObject({
  ...LabelLine.shape,
  ...RatingRecord.shape,
  value: RatingRecord.shape.value.nullable(),
});

export interface RatingLineError {
  line: number;
  message: string;
}

/**
 * Parses JSONL ratings; blank lines are skipped, every bad line is reported with its number. A
 * criterion left empty (`value: null`) is no rating, and a researcher's adjudicated value is not a
 * labeler's: both are left out.
 */
export function parseRatingsJsonl(text: string): {
  ratings: RatingRecord[];
  errors: RatingLineError[];
} {
  const ratings: RatingRecord[] = [];
  const errors: RatingLineError[] = [];
  text.split('\n').forEach((raw, i) => {
    const line = raw.trim();
    if (line === '') return;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      errors.push({ line: i + 1, message: 'not JSON' });
      return;
    }
    const parsed = RatingLine.safeParse(value);
    if (!parsed.success) {
      errors.push({
        line: i + 1,
        message: parsed.error.issues
          .map((issue) => `${issue.path.join('.') || 'record'}: ${issue.message}`)
          .join('; '),
      });
      return;
    }
    const { item, labeler, criterion, value: rating, adjudicated } = parsed.data;
    if (rating === null || adjudicated === true) return;
    ratings.push(
      criterion === undefined
        ? { item, labeler, value: rating }
        : { item, labeler, criterion, value: rating },
    );
  });
  return { ratings, errors };
}

export type AlphaByLevel = Record<MeasurementLevel, number | null>;

export interface TwoRaterAgreement {
  nominal: number | null;
  quadratic: number | null;
}

export interface AgreementSummary {
  items: number;
  /**
   * Items two or more labelers rated (on one criterion at least, when pooled): the only ones α and
   * κ can pair. Fewer than `items` when some were rated once, which a reader of `items` would miss.
   */
  pairableItems: number;
  labelers: number;
  krippendorffAlpha: AlphaByLevel;
  /** Only when α is undefined at every level: why, for a reader who would otherwise see "n/a". */
  alphaUndefined?: string;
  /** Only with exactly two labelers. */
  cohenKappa?: TwoRaterAgreement;
  /** With two labelers whose κ is undefined: why, in place of "n/a". */
  cohenKappaUndefined?: string;
  /** With `bootstrap`: 95% percentile intervals of α per level, items resampled. */
  intervals?: Record<MeasurementLevel, Interval>;
}

export interface AgreementReport extends AgreementSummary {
  /** Per criterion, when any rating names one (ratings without a criterion are under `""`). */
  byCriterion?: Record<string, AgreementSummary>;
}

type Unit = ReadonlyMap<string, RatingValue>;

/** Code-unit order: the same on every machine, where `localeCompare` follows the locale. */
function byCodeUnits(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/**
 * Units keyed by item (and criterion), each its item and a map labeler → value; a later duplicate
 * wins. They come ordered by item, then criterion, whatever order the ratings came in: a
 * bootstrap's seed picks units by their place, so the same labels read from the store (the page)
 * and from an export (the CLI) must put them in the same places to give the same interval.
 */
function unitsOf(
  ratings: readonly RatingRecord[],
  byCriterion: boolean,
): { item: string; values: Map<string, RatingValue> }[] {
  const units = new Map<
    string,
    { item: string; criterion: string; values: Map<string, RatingValue> }
  >();
  for (const rating of ratings) {
    const criterion = byCriterion ? (rating.criterion ?? '') : '';
    const key = JSON.stringify([rating.item, criterion]);
    let unit = units.get(key);
    if (unit === undefined) {
      units.set(key, (unit = { item: rating.item, criterion, values: new Map() }));
    }
    unit.values.set(rating.labeler, rating.value);
  }
  return [...units.values()].toSorted(
    (a, b) => byCodeUnits(a.item, b.item) || byCodeUnits(a.criterion, b.criterion),
  );
}

/**
 * How many items have a unit two or more labelers rated: a unit rated once cannot be paired, so it
 * enters neither α (see `krippendorffAlpha`) nor κ.
 */
function pairableItemCount(units: Iterable<{ item: string; values: Unit }>): number {
  const items = new Set<string>();
  for (const unit of units) if (unit.values.size >= 2) items.add(unit.item);
  return items.size;
}

function alphaByLevel(values: Float64Array): AlphaByLevel {
  const at = (level: MeasurementLevel) => {
    const value = values[MEASUREMENT_LEVELS.indexOf(level)] ?? NaN;
    return Number.isNaN(value) ? null : value;
  };
  return {
    nominal: at('nominal'),
    ordinal: at('ordinal'),
    interval: at('interval'),
    ratio: at('ratio'),
  };
}

/**
 * 95% intervals of α at every level, resampling items: `units` (sorted by item) are resampled
 * whole items at a time, so that pooled, an item's criteria come and go together. Its ratings on
 * different criteria come from the same reading of the same output, not independent draws, and
 * resampling item × criterion units apart gave intervals narrower than the data support.
 */
function alphaIntervals(
  units: readonly { item: string; values: Unit }[],
  estimates: AlphaByLevel,
  bootstrap: BootstrapOptions,
): Record<MeasurementLevel, Interval> {
  const alphaOf = weightedAlpha(units.map((unit) => [...unit.values.values()]));
  const itemOf = new Int32Array(units.length);
  let items = 0;
  units.forEach((unit, u) => {
    if (u > 0 && unit.item !== units[u - 1]?.item) items++;
    itemOf[u] = items;
  });
  const weights = new Float64Array(units.length);
  const intervals = bootstrapIntervals(
    units.length === 0 ? 0 : items + 1,
    MEASUREMENT_LEVELS.map((level) => estimates[level]),
    (counts, values) => {
      for (let u = 0; u < units.length; u++) weights[u] = counts[itemOf[u] ?? 0] ?? 0;
      alphaOf(weights, values);
    },
    bootstrap,
  );
  const [nominal, ordinal, interval, ratio] = intervals;
  const none = emptyInterval();
  return {
    nominal: nominal ?? none,
    ordinal: ordinal ?? none,
    interval: interval ?? none,
    ratio: ratio ?? none,
  };
}

/** The two labelers' values on the units both rated. */
function pairsOf(units: readonly Unit[], a: string, b: string): [RatingValue, RatingValue][] {
  const pairs: [RatingValue, RatingValue][] = [];
  for (const unit of units) {
    const x = unit.get(a);
    const y = unit.get(b);
    if (x !== undefined && y !== undefined) pairs.push([x, y]);
  }
  return pairs;
}

function summarize(
  ratings: readonly RatingRecord[],
  byCriterion: boolean,
  bootstrap: BootstrapOptions | undefined,
): AgreementSummary {
  const itemUnits = unitsOf(ratings, byCriterion);
  const units = itemUnits.map((unit) => unit.values);
  const values = units.map((unit) => [...unit.values()]);
  const alpha = new Float64Array(MEASUREMENT_LEVELS.length);
  weightedAlpha(values)(new Float64Array(values.length).fill(1), alpha);
  const labelers = [...new Set(ratings.map((rating) => rating.labeler))].toSorted();
  const summary: AgreementSummary = {
    items: new Set(ratings.map((rating) => rating.item)).size,
    pairableItems: pairableItemCount(itemUnits),
    labelers: labelers.length,
    krippendorffAlpha: alphaByLevel(alpha),
  };
  const undefinedReason = alphaUndefinedReason(values);
  if (undefinedReason !== null) summary.alphaUndefined = undefinedReason;
  const [a, b] = labelers;
  if (labelers.length === 2 && a !== undefined && b !== undefined) {
    const pairs = pairsOf(units, a, b);
    const kappaUndefined = kappaUndefinedReason(pairs);
    if (kappaUndefined !== null) summary.cohenKappaUndefined = kappaUndefined;
    summary.cohenKappa = {
      nominal: cohenKappa(pairs, 'none'),
      quadratic: pairs.every(([x, y]) => typeof x === 'number' && typeof y === 'number')
        ? cohenKappa(pairs, 'quadratic')
        : null,
    };
  }
  if (bootstrap !== undefined) {
    summary.intervals = alphaIntervals(itemUnits, summary.krippendorffAlpha, bootstrap);
  }
  return summary;
}

function emptyInterval(): Interval {
  return { estimate: null, low: null, high: null, resamples: 0 };
}

/**
 * Agreement of N labelers over JSONL-style ratings: α at every measurement level over all units
 * (item × criterion), Cohen's κ with exactly two labelers, and the same per criterion.
 */
export function agreementReport(
  ratings: readonly RatingRecord[],
  options: { bootstrap?: BootstrapOptions } = {},
): AgreementReport {
  const report: AgreementReport = summarize(ratings, true, options.bootstrap);
  const criteria = [...new Set(ratings.map((rating) => rating.criterion))];
  if (criteria.some((criterion) => criterion !== undefined)) {
    report.byCriterion = {};
    for (const criterion of criteria.toSorted()) {
      const subset = ratings.filter((rating) => rating.criterion === criterion);
      report.byCriterion[criterion ?? ''] = summarize(subset, false, options.bootstrap);
    }
  }
  return report;
}

function rho(sample: readonly (readonly [number, number])[]): number | null {
  if (sample.length < 2) return null;
  const value = spearman(
    sample.map(([x]) => x),
    sample.map(([, y]) => y),
  );
  return Number.isFinite(value) ? value : null;
}

/** ρ into `values[0]`, NaN where undefined. */
type WeightedStatistic = (weights: ArrayLike<number>, values: Float64Array) => void;

/**
 * Average ranks of the drawn values (`order` sorts `side`; each counts `weights` times), into
 * `ranks`; how many were drawn. Ties, a value drawn twice included, share their average rank.
 */
function rankDrawn(
  side: Float64Array,
  order: Int32Array,
  ranks: Float64Array,
  weights: ArrayLike<number>,
): number {
  let below = 0;
  let i = 0;
  while (i < order.length) {
    const value = side[order[i] ?? 0];
    let j = i;
    let tied = 0;
    while (j < order.length && side[order[j] ?? 0] === value) tied += weights[order[j++] ?? 0] ?? 0;
    // The average of ranks below + 1 … below + tied.
    const average = below + (tied + 1) / 2;
    for (let t = i; t < j; t++) ranks[order[t] ?? 0] = average;
    below += tied;
    i = j;
  }
  return below;
}

/**
 * Spearman's ρ of the pairs each counted as many times as its weight says, as `rho` gives on the
 * pairs written out: tied values (a pair drawn twice ties with itself) share their average rank.
 * Each side is sorted once; a call walks the sorted order, ranking the drawn pairs in one pass.
 */
export function weightedSpearman(pairs: readonly (readonly [number, number])[]): WeightedStatistic {
  const xs = Float64Array.from(pairs, ([x]) => x);
  const ys = Float64Array.from(pairs, ([, y]) => y);
  const byValue = (side: Float64Array) =>
    Int32Array.from(pairs.keys()).toSorted((a, b) => (side[a] ?? 0) - (side[b] ?? 0));
  const xOrder = byValue(xs);
  const yOrder = byValue(ys);
  const xRanks = new Float64Array(pairs.length);
  const yRanks = new Float64Array(pairs.length);
  return (weights, values) => {
    values.fill(NaN);
    const n = rankDrawn(xs, xOrder, xRanks, weights);
    rankDrawn(ys, yOrder, yRanks, weights);
    if (n < 2) return;
    let meanX = 0;
    let meanY = 0;
    for (let p = 0; p < pairs.length; p++) {
      const weight = weights[p] ?? 0;
      meanX += weight * (xRanks[p] ?? 0);
      meanY += weight * (yRanks[p] ?? 0);
    }
    meanX /= n;
    meanY /= n;
    let covariance = 0;
    let varianceX = 0;
    let varianceY = 0;
    for (let p = 0; p < pairs.length; p++) {
      const weight = weights[p] ?? 0;
      if (weight === 0) continue;
      const dx = (xRanks[p] ?? 0) - meanX;
      const dy = (yRanks[p] ?? 0) - meanY;
      covariance += weight * dx * dy;
      varianceX += weight * dx * dx;
      varianceY += weight * dy * dy;
    }
    values[0] = covariance / Math.sqrt(varianceX * varianceY);
  };
}

/**
 * κ of a paired sample, null below two pairs as ρ is: one pair gives 0 on a disagreement and no
 * value on an agreement (scikit-learn too), a number that reads like a finding and is none.
 */
function pairedKappa(
  sample: readonly (readonly [number, number])[],
  weighting: 'none' | 'quadratic',
): number | null {
  return sample.length < 2 ? null : cohenKappa(sample, weighting);
}

export interface PairedComparison {
  pairs: number;
  spearman: number | null;
  kappa: TwoRaterAgreement;
  /** Why κ is undefined when there are pairs enough but one value throughout. */
  kappaUndefined?: string;
  confusion: ConfusionMatrix;
  /** Spearman's ρ with a percentile bootstrap interval over the pairs. */
  spearmanInterval: Interval;
  /** κ's percentile bootstrap intervals over the pairs: on a handful of items they span most of [-1, 1]. */
  kappaIntervals: { nominal: Interval; quadratic: Interval };
}

/**
 * Two sources on the same items (a human vs the judge, a human vs the rules): rank correlation,
 * κ and the confusion matrix. κ and the matrix count agreement on scale points, so `points` holds
 * each pair as points of the scale; ρ ranks the values as they are (`values`, the same items in
 * the same order: a median of 4.5, a rule score of 0.73), because rounding first ties values ρ
 * should tell apart (walk 47: on a 0/1 criterion it turned a ρ of +0.74 into −0.33).
 */
export function comparePaired(
  points: readonly (readonly [number, number])[],
  bootstrap: BootstrapOptions = {},
  values: readonly (readonly [number, number])[] = points,
): PairedComparison {
  if (values.length !== points.length) {
    throw new Error(`${values.length} value pairs for ${points.length} pairs of points`);
  }
  const pairs = points;
  const kappaUndefined = pairs.length < 2 ? null : kappaUndefinedReason(pairs);
  const kappa = {
    nominal: pairedKappa(pairs, 'none'),
    quadratic: pairedKappa(pairs, 'quadratic'),
  };
  const spearmanValue = rho(values);
  // The three statistics from the same resamples, as three seeded bootstraps of the same pairs
  // drew them before, at a third of the cost.
  const rhoOf = weightedSpearman(values);
  const kappaOf = weightedKappa(pairs);
  const kappas = new Float64Array(2);
  const [spearmanInterval, nominal, quadratic] = bootstrapIntervals(
    pairs.length,
    [spearmanValue, kappa.nominal, kappa.quadratic],
    (counts, out) => {
      // Below two pairs neither ρ nor κ is given (see pairedKappa).
      if (pairs.length < 2) return;
      rhoOf(counts, out);
      kappaOf(counts, kappas);
      out[1] = kappas[0] ?? NaN;
      out[2] = kappas[1] ?? NaN;
    },
    bootstrap,
  );
  const none = emptyInterval();
  return {
    pairs: pairs.length,
    spearman: spearmanValue,
    ...(kappaUndefined === null ? {} : { kappaUndefined }),
    kappa,
    confusion: confusionMatrix(pairs),
    spearmanInterval: spearmanInterval ?? none,
    kappaIntervals: { nominal: nominal ?? none, quadratic: quadratic ?? none },
  };
}
