import { describe, expect, it } from 'vitest';
import type { ChartRow } from './chart-data';
import { scoreSlice } from './bench.fixture';
import {
  alongAxisTitle,
  alongPointLabel,
  COST_AXES,
  costBucketLabel,
  anyTokensUsed,
  defaultCostAxis,
  HISTOGRAM_AXES,
  lineChartSpecs,
  meanAlong,
  scoreByCost,
  scoreHistogram,
} from './chart-data';

const sims = ['replay', 'openai:http://127.0.0.1:8000/v1#m'];

/**
 * Rows with means to 6 decimals: means come from sums on the 2^-32 score grid, which moves a
 * decimal like 0.7 by less than 1e-9.
 */
function rounded(rows: readonly ChartRow[]): ChartRow[] {
  return rows.map((row) =>
    Object.fromEntries(
      Object.entries(row).map(([key, value]) => [
        key,
        typeof value === 'number' ? Math.round(value * 1e6) / 1e6 : value,
      ]),
    ),
  );
}
const remote = sims[1] ?? '';

describe('scoreHistogram', () => {
  it('gives each simulator its items per tenth, leaving simulators not charted out', () => {
    const slices = [
      scoreSlice([1, 0.95], { axis: 'bin', x: 9 }),
      scoreSlice([0, 0.0999], { sim: remote, axis: 'bin', x: 0 }),
      scoreSlice([0.1], { sim: remote, axis: 'bin', x: 1 }),
      scoreSlice([0.5], { sim: 'not-charted', axis: 'bin', x: 5 }),
      scoreSlice([0.5], { axis: 'turn', x: 5 }),
    ];
    const rows = scoreHistogram(slices, sims);
    expect(rows).toHaveLength(10);
    expect(rows[0]).toEqual({ bin: '0–10', s0: 0, s1: 2 });
    expect(rows[1]).toEqual({ bin: '10–20', s0: 0, s1: 1 });
    expect(rows[5]).toEqual({ bin: '50–60', s0: 0, s1: 0 });
    expect(rows[9]).toEqual({ bin: '90–100', s0: 2, s1: 0 });
  });
});

describe('meanAlong', () => {
  it('averages per distinct turn when there are few, numbering turns from 1 as the item pages do', () => {
    const slices = [
      scoreSlice([0.5, 0.7], { x: 4 }),
      scoreSlice([1], { x: 0 }),
      scoreSlice([0.1], { sim: remote, x: 4 }),
      scoreSlice([null], { sim: remote, x: 0 }),
    ];
    const along = meanAlong(slices, sims, 'turn');
    expect(rounded(along.rows)).toEqual([
      { x: 1, s0: 100, s0n: 1, s1: null, s1n: 0 },
      { x: 5, s0: 60, s0n: 2, s1: 10, s1n: 1 },
    ]);
    expect(along.binWidth).toBe(1);
  });

  it('groups long histories into equal-width buckets named by their lower edge', () => {
    const slices = Array.from({ length: 100 }, (_, length) =>
      scoreSlice([length / 100], { axis: 'history', x: length }),
    );
    const along = meanAlong(slices, ['replay'], 'history', 20);
    const rows = rounded(along.rows);
    expect(rows).toHaveLength(20);
    expect(rows[0]).toEqual({ x: 0, s0: 2, s0n: 5 });
    expect(rows[19]).toEqual({ x: 95, s0: 97, s0n: 5 });
    expect(along.binWidth).toBe(5);
  });

  it('is empty without scored items', () => {
    expect(meanAlong([scoreSlice([null])], sims, 'turn')).toEqual({ rows: [], binWidth: 1 });
  });
});

describe('score by cost', () => {
  it('uses latency for local simulators and tokens once an endpoint used any', () => {
    const local = [
      scoreSlice([1, 1], { axis: 'tokens', x: 0 }),
      scoreSlice([1], { axis: 'latency', x: 2 }),
      scoreSlice([1], { axis: 'latency', x: 0 }),
    ];
    expect(anyTokensUsed(local)).toBe(false);
    expect(defaultCostAxis(local)).toBe('latency');
    const withRemote = [...local, scoreSlice([0.25, 0.75], { sim: remote, axis: 'tokens', x: 11 })];
    expect(anyTokensUsed(withRemote)).toBe(true);
    expect(defaultCostAxis(withRemote)).toBe('tokens');
    expect(rounded(scoreByCost(withRemote, sims, 'tokens'))).toEqual([
      { x: '0', s0: 100, s0n: 2, s1: null, s1n: 0 },
      { x: '1,024–2,047', s0: null, s0n: 0, s1: 50, s1n: 2 },
    ]);
    expect(scoreByCost(withRemote, sims, 'latency').map((row) => row['x'])).toEqual(['<1', '2–3']);
  });

  it('labels buckets that double: 0, 1, 2–3, 4–7…', () => {
    expect([0, 1, 2, 3, 4].map((x) => costBucketLabel(x, 'tokens'))).toEqual([
      '0',
      '1',
      '2–3',
      '4–7',
      '8–15',
    ]);
  });
});

describe('lineChartSpecs', () => {
  it('draws one chart, saying so, when every item shows its whole history', () => {
    const slices = [scoreSlice([1, 0], { axis: 'history-shift', x: 0 })];
    expect(
      lineChartSpecs(slices, sims).map((spec) => [spec.title, spec.x.title, spec.y.title]),
    ).toEqual([
      [
        'Score vs turn (each item shows its whole history: the turns before it)',
        'Turn (1 = first transition)',
        'Mean score (0–100)',
      ],
    ]);
  });

  it('draws both, each with its own axis title, when the history is cut', () => {
    const slices = [
      scoreSlice([1], { axis: 'history-shift', x: 0 }),
      scoreSlice([1], { axis: 'history-shift', x: -22 }),
    ];
    expect(lineChartSpecs(slices, sims).map((spec) => [spec.axis, spec.x.title])).toEqual([
      ['turn', 'Turn (1 = first transition)'],
      ['history', 'History length (earlier turns shown)'],
    ]);
  });

  it('says the bin width on the axis and in the tooltip once turns are grouped', () => {
    // 30 distinct turns, more than 20 points: grouped two by two, each named by its lower edge.
    const slices = [
      scoreSlice([1], { axis: 'history-shift', x: 0 }),
      ...Array.from({ length: 30 }, (_, turn) => scoreSlice([1], { axis: 'turn', x: turn })),
    ];
    const [turn] = lineChartSpecs(slices, ['replay']);
    expect([turn?.x.title, turn?.along.binWidth, turn?.along.rows[1]?.['x']]).toEqual([
      'Turn, in bins of 2 (1 = first transition)',
      2,
      3,
    ]);
    expect(alongPointLabel('turn', 3, 2)).toBe('Turns 3–4');
    expect(alongPointLabel('turn', 3, 1)).toBe('Turn 3');
    expect(alongAxisTitle('history', 5).title).toBe(
      'History length, in bins of 5 (earlier turns shown)',
    );
    expect(alongPointLabel('history', 95, 5)).toBe('History lengths 95–99');
  });

  it('gives every other chart axis a title with its unit', () => {
    expect([HISTOGRAM_AXES.x.title, HISTOGRAM_AXES.y.title]).toEqual([
      'Item score (0–100), in bins of 10',
      'Items',
    ]);
    expect(COST_AXES).toEqual({
      tokens: { title: 'Tokens per prediction (input + output), doubling bins' },
      latency: { title: 'Latency per prediction (ms), doubling bins' },
    });
  });
});
