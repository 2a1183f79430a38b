import { describe, expect, it } from 'vitest';
import { labelsToJsonl } from '../labels-jsonl';
import {
  agreementReport,
  comparePaired,
  parseRatingsJsonl,
  type AgreementSummary,
} from './agreement-report';
import { bootstrapInterval } from './bootstrap';
import { cohenKappa, confusionMatrix } from './cohen-kappa';
import { krippendorffAlpha, type RatingValue } from './krippendorff';

/**
 * Krippendorff (2011), "Computing Krippendorff's Alpha-Reliability": 4 observers × 12 units, with
 * missing values (unit 12 has one value and is not pairable). His published results: nominal 0.743,
 * ordinal 0.815, interval 0.849, ratio 0.797.
 */
const PAPER: (number | null)[][] = [
  [1, 2, 3, 3, 2, 1, 4, 1, 2, null, null, null],
  [1, 2, 3, 3, 2, 2, 4, 1, 2, 5, null, 3],
  [null, 3, 3, 3, 2, 3, 4, 2, 2, 5, 1, null],
  [1, 2, 3, 3, 2, 4, 4, 1, 2, 5, 1, null],
];
/** The 3 coders × 15 units example of the same literature (nominal 0.691, interval 0.811). */
const THREE_CODERS: (number | null)[][] = [
  [null, null, null, null, null, 3, 4, 1, 2, 1, 1, 3, 3, null, 3],
  [1, null, 2, 1, 3, 3, 4, 3, null, null, null, null, null, null, null],
  [null, null, 2, 1, 3, 4, 4, null, 2, 1, 1, 3, 3, null, 4],
];

/** Observers × units → units × values. */
function unitsOf(matrix: (RatingValue | null)[][]): (RatingValue | null)[][] {
  return (matrix[0] ?? []).map((_, u) => matrix.map((row) => row[u] ?? null));
}

describe("Krippendorff's alpha", () => {
  it("reproduces Krippendorff's worked example at all four levels", () => {
    const units = unitsOf(PAPER);
    expect(krippendorffAlpha(units, 'nominal')?.toFixed(3)).toBe('0.743');
    expect(krippendorffAlpha(units, 'ordinal')?.toFixed(3)).toBe('0.815');
    expect(krippendorffAlpha(units, 'interval')?.toFixed(3)).toBe('0.849');
    expect(krippendorffAlpha(units, 'ratio')?.toFixed(3)).toBe('0.797');
  });

  it('reproduces the three-coder example with many missing values', () => {
    const units = unitsOf(THREE_CODERS);
    expect(krippendorffAlpha(units, 'nominal')).toBeCloseTo(0.691358, 6);
    expect(krippendorffAlpha(units, 'interval')).toBeCloseTo(0.810845, 6);
  });

  it('takes category names for nominal data and is undefined where it must be', () => {
    const labels = unitsOf([
      ['pos', 'neg', 'neu', null],
      ['pos', 'neg', 'neu', 'pos'],
      ['pos', 'neg', 'pos', 'pos'],
    ]);
    expect(krippendorffAlpha(labels, 'nominal')).toBeCloseTo(0.722222, 6);
    expect(krippendorffAlpha(labels, 'interval')).toBeNull();
    expect(
      krippendorffAlpha(
        [
          [1, 1],
          [1, 1],
        ],
        'nominal',
      ),
    ).toBeNull();
    expect(krippendorffAlpha([[1], [2]], 'nominal')).toBeNull();
    expect(
      krippendorffAlpha(
        [
          [1, 1],
          [2, 2],
          [3, 3],
        ],
        'interval',
      ),
    ).toBe(1);
  });
});

describe("Cohen's kappa", () => {
  it('gives the textbook 0.4 for 20/5/10/15', () => {
    const pairs: [string, string][] = [
      ...Array.from({ length: 20 }, (): [string, string] => ['yes', 'yes']),
      ...Array.from({ length: 5 }, (): [string, string] => ['yes', 'no']),
      ...Array.from({ length: 10 }, (): [string, string] => ['no', 'yes']),
      ...Array.from({ length: 15 }, (): [string, string] => ['no', 'no']),
    ];
    expect(cohenKappa(pairs)).toBeCloseTo(0.4, 12);
    expect(confusionMatrix(pairs)).toEqual({
      labels: ['no', 'yes'],
      counts: [
        [15, 10],
        [5, 20],
      ],
    });
  });

  it('weights disagreements quadratically by rank', () => {
    const pairs: [number, number][] = [
      [1, 1],
      [2, 2],
      [3, 3],
      [1, 2],
    ];
    // Worked by hand: observed 0.25, expected 1.25 → 0.8; unweighted 1 − 1/2.75.
    expect(cohenKappa(pairs, 'quadratic')).toBeCloseTo(0.8, 12);
    expect(cohenKappa(pairs, 'none')).toBeCloseTo(1 - 1 / 2.75, 12);
    expect(cohenKappa([[1, 1]], 'none')).toBeNull();
  });

  it('is exactly 0, not a negative zero, where agreement is at chance', () => {
    // Observed and chance disagreement are equal here; in floating point 1 − o/e came out
    // −2.2e-16, which `labels agreement` printed as "-0.000".
    const quadratic = cohenKappa(
      [
        [0, 1],
        [1, 0],
        [3, 1],
      ],
      'quadratic',
    );
    const nominal = cohenKappa(
      [
        [2, 2],
        [1, 0],
        [0, 1],
      ],
      'none',
    );
    expect([quadratic, nominal]).toEqual([0, 0]);
    expect([quadratic?.toFixed(3), nominal?.toFixed(3)]).toEqual(['0.000', '0.000']);
  });
});

const alpha = (sample: readonly (RatingValue | null)[][]) => krippendorffAlpha(sample, 'interval');

describe('bootstrap intervals', () => {
  it('are deterministic for a seed and bracket the estimate', () => {
    const units = unitsOf(PAPER);
    const first = bootstrapInterval(units, alpha, { seed: 7, resamples: 400 });
    expect(bootstrapInterval(units, alpha, { seed: 7, resamples: 400 })).toEqual(first);
    expect(first.estimate).toBeCloseTo(0.849, 3);
    expect(first.low).not.toBeNull();
    expect(first.low ?? 1).toBeLessThan(first.estimate ?? 0);
    expect(first.high ?? 0).toBeGreaterThanOrEqual(first.estimate ?? 1);
  });
});

/** A summary's items, and how many of them two or more labelers rated. */
function counts(summary: AgreementSummary | undefined): (number | undefined)[] {
  return [summary?.items, summary?.pairableItems];
}

describe('agreementReport over JSONL ratings', () => {
  const observers = ['A', 'B', 'C', 'D'];
  const jsonl = PAPER.flatMap((row, o) =>
    row.flatMap((value, u) =>
      value === null ? [] : [JSON.stringify({ item: `u${u + 1}`, labeler: observers[o], value })],
    ),
  ).join('\n');

  it('reports α per level for N labelers', () => {
    const { ratings, errors } = parseRatingsJsonl(`${jsonl}\n\n`);
    expect(errors).toEqual([]);
    const report = agreementReport(ratings);
    expect(report.items).toBe(12);
    // u12 has one rating: it cannot be paired and does not enter α.
    expect(report.pairableItems).toBe(11);
    expect(report.labelers).toBe(4);
    expect(report.cohenKappa).toBeUndefined();
    expect(report.byCriterion).toBeUndefined();
    expect(Object.values(report.krippendorffAlpha).map((a) => a?.toFixed(3))).toEqual([
      '0.743',
      '0.815',
      '0.849',
      '0.797',
    ]);
  });

  it('says why α is undefined: identical labels on a criterion, or no item labeled twice', () => {
    const report = agreementReport([
      { item: 'a', labeler: 'ann', criterion: 'format', value: 4 },
      { item: 'a', labeler: 'bob', criterion: 'format', value: 4 },
      { item: 'b', labeler: 'ann', criterion: 'format', value: 4 },
      { item: 'b', labeler: 'bob', criterion: 'format', value: 4 },
      { item: 'a', labeler: 'ann', criterion: 'facts', value: 1 },
      { item: 'a', labeler: 'bob', criterion: 'facts', value: 2 },
      { item: 'b', labeler: 'ann', criterion: 'facts', value: 3 },
      { item: 'b', labeler: 'bob', criterion: 'facts', value: 3 },
      { item: 'a', labeler: 'ann', criterion: 'tone', value: 2 },
    ]);
    const format = report.byCriterion?.['format'];
    expect([format?.krippendorffAlpha, format?.alphaUndefined]).toEqual([
      { nominal: null, ordinal: null, interval: null, ratio: null },
      'all labels identical: α undefined (no variance)',
    ]);
    expect(report.byCriterion?.['tone']?.alphaUndefined).toBe(
      'no item has two labels: α undefined (nothing to compare)',
    );
    expect(report.byCriterion?.['facts']?.alphaUndefined).toBeUndefined();
    expect(report.alphaUndefined).toBeUndefined();
    // κ between the two labelers says the same, where α does.
    expect(format?.cohenKappaUndefined).toBe('all values identical: κ undefined (no variance)');
    expect(report.byCriterion?.['facts']?.cohenKappaUndefined).toBeUndefined();
  });

  it('counts the items two or more labelers rated, per criterion and pooled', () => {
    const report = agreementReport([
      { item: 'a', labeler: 'ann', criterion: 'format', value: 4 },
      { item: 'a', labeler: 'bob', criterion: 'format', value: 3 },
      { item: 'b', labeler: 'ann', criterion: 'format', value: 4 },
      { item: 'b', labeler: 'ann', criterion: 'tone', value: 2 },
      { item: 'c', labeler: 'ann', criterion: 'tone', value: 1 },
      { item: 'c', labeler: 'bob', criterion: 'tone', value: 1 },
      // A labeler's second rating of a unit replaces the first: still one labeler on it.
      { item: 'd', labeler: 'bob', criterion: 'tone', value: 1 },
      { item: 'd', labeler: 'bob', criterion: 'tone', value: 2 },
    ]);
    expect([
      counts(report),
      counts(report.byCriterion?.['format']),
      counts(report.byCriterion?.['tone']),
    ]).toEqual([
      [4, 2],
      [2, 1],
      [3, 1],
    ]);
  });

  it('adds κ for two labelers and splits by criterion', () => {
    const lines = [
      { item: 1, labeler: 'ann', criterion: 'format', value: 5 },
      { item: 1, labeler: 'bob', criterion: 'format', value: 4 },
      { item: 2, labeler: 'ann', criterion: 'format', value: 2 },
      { item: 2, labeler: 'bob', criterion: 'format', value: 2 },
      { item: 3, labeler: 'ann', criterion: 'format', value: 1 },
      { item: 3, labeler: 'bob', criterion: 'format', value: 1 },
      { item: 1, labeler: 'ann', criterion: 'facts', value: 'right' },
      { item: 1, labeler: 'bob', criterion: 'facts', value: 'wrong' },
      { item: 2, labeler: 'ann', criterion: 'facts', value: 'right' },
      { item: 2, labeler: 'bob', criterion: 'facts', value: 'right' },
    ].map((line) => JSON.stringify(line));
    const report = agreementReport(parseRatingsJsonl(lines.join('\n')).ratings);
    expect(report.items).toBe(3);
    expect(report.labelers).toBe(2);
    const format = report.byCriterion?.['format'];
    expect(format?.cohenKappa?.nominal).toBeCloseTo(
      cohenKappa([
        [5, 4],
        [2, 2],
        [1, 1],
      ]) ?? NaN,
      12,
    );
    expect(format?.cohenKappa?.quadratic).toBeCloseTo(
      cohenKappa(
        [
          [5, 4],
          [2, 2],
          [1, 1],
        ],
        'quadratic',
      ) ?? NaN,
      12,
    );
    expect(report.byCriterion?.['facts']?.krippendorffAlpha.interval).toBeNull();
    expect(report.byCriterion?.['facts']?.cohenKappa?.quadratic).toBeNull();
  });

  it('names the bad lines', () => {
    const { errors } = parseRatingsJsonl(
      '{"item":"a","labeler":"x","value":1}\nnope\n{"item":"a","value":1}',
    );
    expect(errors).toEqual([
      { line: 2, message: 'not JSON' },
      { line: 3, message: expect.stringContaining('labeler') },
    ]);
  });

  it("reads the workbench's own label export: empty criteria and settled values are no ratings", () => {
    const exported = labelsToJsonl(
      [
        {
          itemId: 'a',
          labelerName: 'ana',
          scores: { facts: 4, format: null },
          comment: 'ids',
          flagged: true,
          updatedAt: '2026-12-04T05:00:00.000Z',
        },
        {
          itemId: 'a',
          labelerName: 'bo',
          scores: { facts: 2, format: 3 },
          comment: '',
          flagged: false,
          updatedAt: '2026-12-04T05:01:00.000Z',
        },
      ],
      {
        adjudications: [
          {
            itemId: 'a',
            criterion: 'facts',
            value: 3,
            comment: '',
            researcherName: 'res',
            createdAt: '2026-12-04T06:00:00.000Z',
          },
        ],
        provenance: () => ({
          task: 'tau2-bench/airline',
          dataset: 'tau2',
          trajectory: 't-1',
          stepIndex: 4,
        }),
      },
    );
    expect(parseRatingsJsonl(exported)).toEqual({
      ratings: [
        { item: 'a', labeler: 'ana', criterion: 'facts', value: 4 },
        { item: 'a', labeler: 'bo', criterion: 'facts', value: 2 },
        { item: 'a', labeler: 'bo', criterion: 'format', value: 3 },
      ],
      errors: [],
    });
    // Still strict: a misspelt key is said, not read past.
    expect(parseRatingsJsonl('{"item":"a","labeler":"x","value":1,"coment":""}').errors).toEqual([
      { line: 1, message: 'record: Unrecognized key: "coment"' },
    ]);
  });
});

describe('comparePaired (human vs judge or rules)', () => {
  it('ranks, κ and confusion on the same items', () => {
    const pairs: [number, number][] = [
      [1, 1],
      [2, 2],
      [3, 4],
      [4, 3],
      [5, 5],
    ];
    const comparison = comparePaired(pairs, { seed: 3, resamples: 200 });
    expect(comparison.pairs).toBe(5);
    expect(comparison.spearman).toBeCloseTo(0.9, 12);
    expect(comparison.confusion.counts.map((row) => row.reduce((a, b) => a + b, 0))).toEqual([
      1, 1, 1, 1, 1,
    ]);
    // κ's intervals hold its estimate and, on five pairs, are wide (seeded, so exact).
    expect(comparison.kappaIntervals.nominal).toEqual({
      estimate: comparison.kappa.nominal,
      low: -0.25,
      high: 1,
      resamples: 200,
    });
    expect(comparison.kappa.quadratic).toBeCloseTo(0.9, 12);
    expect(comparison.kappaIntervals.quadratic.low).toBeCloseTo(2 / 7, 12);
    expect(comparison.kappaIntervals.quadratic.high).toBe(1);
  });

  it('gives no κ or ρ on a single item, rather than a 0 that reads like a finding', () => {
    const comparison = comparePaired([[1, 0]], { seed: 3, resamples: 200 });
    expect(comparison.pairs).toBe(1);
    expect(comparison.kappa).toEqual({ nominal: null, quadratic: null });
    expect(comparison.spearman).toBeNull();
    expect(comparison.kappaIntervals.nominal).toEqual({
      estimate: null,
      low: null,
      high: null,
      resamples: 200,
    });
    // Rows are the human's value (1), columns the other source's (0), in the order [0, 1].
    expect(comparison.confusion.counts).toEqual([
      [0, 0],
      [1, 0],
    ]);
  });

  it('says why κ is undefined when the human and the other source give one value throughout', () => {
    const agreeing = comparePaired(
      [
        [3, 3],
        [3, 3],
        [3, 3],
      ],
      { seed: 3, resamples: 50 },
    );
    expect([agreeing.kappa, agreeing.kappaUndefined]).toEqual([
      { nominal: null, quadratic: null },
      'all values identical: κ undefined (no variance)',
    ]);
    // One value each but not the same one: κ is defined (0, agreement no better than chance).
    const apart = comparePaired(
      [
        [3, 2],
        [3, 2],
      ],
      { seed: 3, resamples: 50 },
    );
    expect([apart.kappa, apart.kappaUndefined]).toEqual([{ nominal: 0, quadratic: 0 }, undefined]);
    // A single pair says only that κ needs two (the page says so), not why it is undefined.
    expect(comparePaired([[1, 1]], { seed: 3, resamples: 50 }).kappaUndefined).toBeUndefined();
  });
});
