import { spearman } from '@terrarium/fidelity';
import * as fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  agreementReport,
  comparePaired,
  weightedSpearman,
  type RatingRecord,
} from './agreement-report';
import { bootstrapInterval, bootstrapIntervals, type Interval } from './bootstrap';
import { cohenKappa, weightedKappa } from './cohen-kappa';
import {
  krippendorffAlpha,
  MEASUREMENT_LEVELS,
  weightedAlpha,
  type RatingValue,
} from './krippendorff';

/** Each element repeated as many times as its weight says: the sample a weighting stands for. */
function expand<T>(elements: readonly T[], weights: readonly number[]): T[] {
  return elements.flatMap((element, i) => Array.from({ length: weights[i] ?? 0 }, () => element));
}

/**
 * A statistic to 10 decimals, null when undefined (NaN from the weighted functions, null from the
 * others): sums taken in another order differ in the last bits, nothing more.
 */
function near(value: number | null | undefined): number | null {
  if (value === null || value === undefined || Number.isNaN(value)) return null;
  // + 0 turns a −0 into 0, which toEqual tells apart.
  return Math.round(value * 1e10) / 1e10 + 0;
}

/** The mean of a sample. */
function mean(sample: readonly number[]): number {
  return sample.reduce((sum, value) => sum + value, 0) / sample.length;
}

/** A rating by labeler, then criterion, then item: an order an export never has. */
function keyOf(rating: RatingRecord): string {
  return `${rating.labeler} ${rating.criterion} ${rating.item}`;
}

/** ρ as comparePaired gives it: null where undefined. */
function rho(sample: readonly (readonly [number, number])[]): number | null {
  const value = spearman(
    sample.map(([x]) => x),
    sample.map(([, y]) => y),
  );
  return Number.isFinite(value) ? value : null;
}

/** Each interval's estimate and bounds, to 10 decimals. */
function bounds(intervals: Record<string, Interval>): (number | null)[][] {
  return Object.values(intervals).map((interval) => [
    near(interval.estimate),
    near(interval.low),
    near(interval.high),
  ]);
}

const scaleUnit = fc.array(fc.option(fc.integer({ min: 1, max: 5 }), { nil: null }), {
  minLength: 0,
  maxLength: 4,
});

describe('weighted statistics: what the bootstrap computes per resample', () => {
  it('weightedAlpha is krippendorffAlpha of the units repeated by their weights', () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(scaleUnit, fc.integer({ min: 0, max: 3 })), { maxLength: 12 }),
        (drawn) => {
          const units = drawn.map(([unit]) => unit);
          const weights = drawn.map(([, weight]) => weight);
          const values = new Float64Array(MEASUREMENT_LEVELS.length);
          weightedAlpha(units)(weights, values);
          expect([...values].map(near)).toEqual(
            MEASUREMENT_LEVELS.map((level) =>
              near(krippendorffAlpha(expand(units, weights), level)),
            ),
          );
        },
      ),
      { seed: 52, numRuns: 300 },
    );
  });

  it('weightedAlpha leaves interval and ratio undefined only when a drawn unit names a category', () => {
    const units: RatingValue[][] = [
      [1, 2],
      [2, 2],
      ['low', 'high'],
    ];
    const values = new Float64Array(4);
    const alphaOf = weightedAlpha(units);
    alphaOf([1, 1, 0], values);
    expect([...values].map(near)).toEqual(
      MEASUREMENT_LEVELS.map((level) => near(krippendorffAlpha(units.slice(0, 2), level))),
    );
    alphaOf([1, 1, 1], values);
    expect([near(values[2]), near(values[3])]).toEqual([null, null]);
  });

  it('weightedKappa is cohenKappa of the pairs repeated, ranking only the categories drawn', () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.tuple(fc.integer({ min: 1, max: 5 }), fc.integer({ min: 1, max: 5 }), fc.nat(3)),
          { maxLength: 10 },
        ),
        (drawn) => {
          const pairs = drawn.map(([a, b]): [number, number] => [a, b]);
          const weights = drawn.map(([, , weight]) => weight);
          const values = new Float64Array(2);
          weightedKappa(pairs)(weights, values);
          const sample = expand(pairs, weights);
          expect([near(values[0]), near(values[1])]).toEqual([
            near(cohenKappa(sample, 'none')),
            near(cohenKappa(sample, 'quadratic')),
          ]);
        },
      ),
      { seed: 52, numRuns: 300 },
    );
  });

  it('weightedSpearman is Spearman’s ρ of the pairs repeated, ties at their average rank', () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.tuple(
            fc.constantFrom(0, 0.25, 0.5, 0.75, 1),
            fc.double({ min: 0, max: 1, noNaN: true }),
            fc.nat(3),
          ),
          { maxLength: 10 },
        ),
        (drawn) => {
          const pairs = drawn.map(([x, y]): [number, number] => [x, y]);
          const weights = drawn.map(([, , weight]) => weight);
          const values = new Float64Array(1);
          weightedSpearman(pairs)(weights, values);
          const sample = expand(pairs, weights);
          const expected =
            sample.length < 2
              ? null
              : spearman(
                  sample.map(([x]) => x),
                  sample.map(([, y]) => y),
                );
          expect(near(values[0])).toEqual(near(expected));
        },
      ),
      { seed: 52, numRuns: 300 },
    );
  });
});

describe('bootstrapIntervals', () => {
  it('draws the resamples bootstrapInterval draws, so one statistic gives the same interval', () => {
    const values = [3, 1, 4, 1, 5, 9, 2, 6, 5, 3];
    const [fast] = bootstrapIntervals(
      values.length,
      [mean(values)],
      (counts, out) => {
        out[0] = mean(expand(values, [...counts]));
      },
      { resamples: 500, seed: 9 },
    );
    expect(fast).toEqual(bootstrapInterval(values, mean, { resamples: 500, seed: 9 }));
  });
});

/** Two labelers, three criteria, eight items: ann and bob mostly agree, now and then by one. */
function ratingsOfEightItems(): RatingRecord[] {
  const ratings: RatingRecord[] = [];
  const criteria = ['facts', 'format', 'realism'];
  for (let i = 0; i < 8; i++)
    criteria.forEach((criterion, c) => {
      const base = 1 + ((i * 3 + c * 2) % 5);
      ratings.push({ item: `item-${i}`, labeler: 'ann', criterion, value: base });
      ratings.push({
        item: `item-${i}`,
        labeler: 'bob',
        criterion,
        value: (i + c) % 3 === 0 ? Math.min(5, base + 1) : base,
      });
    });
  return ratings;
}

describe('agreementReport intervals', () => {
  const ratings = ratingsOfEightItems();
  const options = { bootstrap: { resamples: 300, seed: 4 } };

  it('pooled, resample items with all their criteria, not item × criterion units apart', () => {
    const report = agreementReport(ratings, options);
    // The reference: items resampled, each bringing its three criteria as three units of α.
    const items = [...new Set(ratings.map((rating) => rating.item))].toSorted();
    const unitsOfItem = (item: string) =>
      ['facts', 'format', 'realism'].map((criterion) =>
        ratings
          .filter((rating) => rating.item === item && rating.criterion === criterion)
          .map((rating) => rating.value),
      );
    for (const level of MEASUREMENT_LEVELS) {
      const reference: Interval = bootstrapInterval(
        items,
        (sample) => krippendorffAlpha(sample.flatMap(unitsOfItem), level),
        options.bootstrap,
      );
      const interval = report.intervals?.[level];
      expect([
        interval?.resamples,
        near(interval?.estimate),
        near(interval?.low),
        near(interval?.high),
      ]).toEqual([300, near(reference.estimate), near(reference.low), near(reference.high)]);
    }
  });

  it('do not depend on the order the ratings come in', () => {
    const report = agreementReport(ratings, options);
    // Labeler first, then criterion, items last to first: an export's order is another still.
    const reordered = ratings.toSorted((a, b) => (keyOf(a) < keyOf(b) ? 1 : -1));
    expect([reordered[0]?.item, reordered[0]?.labeler, reordered[0]?.criterion]).toEqual([
      'item-7',
      'bob',
      'realism',
    ]);
    expect(agreementReport(reordered, options)).toEqual(report);
  });

  it('per criterion, match a bootstrap of the items one by one', () => {
    const report = agreementReport(ratings, options);
    const items = [...new Set(ratings.map((rating) => rating.item))].toSorted();
    const unitOf = (item: string) =>
      ratings
        .filter((rating) => rating.item === item && rating.criterion === 'facts')
        .map((rating) => rating.value);
    const reference = bootstrapInterval(
      items,
      (sample) => krippendorffAlpha(sample.map(unitOf), 'ordinal'),
      options.bootstrap,
    );
    const facts = report.byCriterion?.['facts']?.intervals?.ordinal;
    expect([near(facts?.low), near(facts?.high)]).toEqual([
      near(reference.low),
      near(reference.high),
    ]);
  });
});

describe('comparePaired intervals', () => {
  it('are the three bootstraps of ρ, κ and quadratic κ over the same pairs', () => {
    const points: [number, number][] = [
      [1, 1],
      [2, 3],
      [3, 3],
      [4, 4],
      [5, 4],
      [2, 2],
      [4, 5],
    ];
    const values: [number, number][] = points.map(([human, machine], i) => [
      human + (i % 2) * 0.5,
      machine - i / 10,
    ]);
    const bootstrap = { resamples: 200, seed: 6 };
    const comparison = comparePaired(points, bootstrap, values);
    const expected = {
      spearman: bootstrapInterval(values, rho, bootstrap),
      nominal: bootstrapInterval(points, (sample) => cohenKappa(sample, 'none'), bootstrap),
      quadratic: bootstrapInterval(points, (sample) => cohenKappa(sample, 'quadratic'), bootstrap),
    };
    const actual = {
      spearman: comparison.spearmanInterval,
      nominal: comparison.kappaIntervals.nominal,
      quadratic: comparison.kappaIntervals.quadratic,
    };
    expect(bounds(actual)).toEqual(bounds(expected));
  });
});
