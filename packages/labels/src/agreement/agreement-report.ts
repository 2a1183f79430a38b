import { spearman } from '@terrarium/fidelity';
import { z } from 'zod';
import { LabelLine } from '../labels-jsonl';
import { bootstrapInterval, type BootstrapOptions, type Interval } from './bootstrap';
import {
  cohenKappa,
  confusionMatrix,
  kappaUndefinedReason,
  type ConfusionMatrix,
} from './cohen-kappa';
import {
  alphaUndefinedReason,
  krippendorffAlpha,
  MEASUREMENT_LEVELS,
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

/**
 * Units keyed by item (and criterion), each its item and a map labeler → value; a later duplicate
 * wins.
 */
function unitsOf(
  ratings: readonly RatingRecord[],
  byCriterion: boolean,
): Map<string, { item: string; values: Map<string, RatingValue> }> {
  const units = new Map<string, { item: string; values: Map<string, RatingValue> }>();
  for (const rating of ratings) {
    const key = byCriterion ? JSON.stringify([rating.item, rating.criterion ?? '']) : rating.item;
    let unit = units.get(key);
    if (unit === undefined) units.set(key, (unit = { item: rating.item, values: new Map() }));
    unit.values.set(rating.labeler, rating.value);
  }
  return units;
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

function alphas(units: readonly Unit[]): AlphaByLevel {
  const values = units.map((unit) => [...unit.values()]);
  return {
    nominal: krippendorffAlpha(values, 'nominal'),
    ordinal: krippendorffAlpha(values, 'ordinal'),
    interval: krippendorffAlpha(values, 'interval'),
    ratio: krippendorffAlpha(values, 'ratio'),
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
  const itemUnits = [...unitsOf(ratings, byCriterion).values()];
  const units = itemUnits.map((unit) => unit.values);
  const labelers = [...new Set(ratings.map((rating) => rating.labeler))].toSorted();
  const summary: AgreementSummary = {
    items: new Set(ratings.map((rating) => rating.item)).size,
    pairableItems: pairableItemCount(itemUnits),
    labelers: labelers.length,
    krippendorffAlpha: alphas(units),
  };
  const undefinedReason = alphaUndefinedReason(units.map((unit) => [...unit.values()]));
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
    const intervals: Partial<Record<MeasurementLevel, Interval>> = {};
    for (const level of MEASUREMENT_LEVELS)
      intervals[level] = bootstrapInterval(
        units,
        (sample) =>
          krippendorffAlpha(
            sample.map((unit) => [...unit.values()]),
            level,
          ),
        bootstrap,
      );
    summary.intervals = {
      nominal: intervals.nominal ?? emptyInterval(),
      ordinal: intervals.ordinal ?? emptyInterval(),
      interval: intervals.interval ?? emptyInterval(),
      ratio: intervals.ratio ?? emptyInterval(),
    };
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
  return {
    pairs: pairs.length,
    spearman: rho(values),
    ...(kappaUndefined === null ? {} : { kappaUndefined }),
    kappa: { nominal: pairedKappa(pairs, 'none'), quadratic: pairedKappa(pairs, 'quadratic') },
    confusion: confusionMatrix(pairs),
    spearmanInterval: bootstrapInterval(values, rho, bootstrap),
    kappaIntervals: {
      nominal: bootstrapInterval(pairs, (sample) => pairedKappa(sample, 'none'), bootstrap),
      quadratic: bootstrapInterval(pairs, (sample) => pairedKappa(sample, 'quadratic'), bootstrap),
    },
  };
}
