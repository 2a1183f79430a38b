import { describe, expect, it } from 'vitest';
import { scorePoint } from './bench.fixture';
import {
  COST_AXES,
  costVsScore,
  defaultCostAxis,
  HISTOGRAM_AXES,
  ITEM_SCORE_AXIS,
  lineChartSpecs,
  meanAlong,
  scoreHistogram,
} from './chart-data';

const sims = ['replay', 'openai:http://127.0.0.1:8000/v1#m'];

describe('scoreHistogram', () => {
  it('counts scores per tenth per simulator, 100 in the last bin, missing scores left out', () => {
    const points = [
      scorePoint({ value: 100 }),
      scorePoint({ value: 95 }),
      scorePoint({ sim: sims[1], value: 0 }),
      scorePoint({ sim: sims[1], value: 10 }),
      scorePoint({ sim: sims[1], value: 9.99 }),
      scorePoint({ sim: sims[1], value: null }),
      scorePoint({ sim: 'not-charted', value: 50 }),
    ];
    const rows = scoreHistogram(points, sims);
    expect(rows).toHaveLength(10);
    expect(rows[0]).toEqual({ bin: '0–10', s0: 0, s1: 2 });
    expect(rows[1]).toEqual({ bin: '10–20', s0: 0, s1: 1 });
    expect(rows[5]).toEqual({ bin: '50–60', s0: 0, s1: 0 });
    expect(rows[9]).toEqual({ bin: '90–100', s0: 2, s1: 0 });
  });
});

describe('meanAlong', () => {
  it('averages per distinct turn index when there are few', () => {
    const points = [
      scorePoint({ turnIndex: 4, value: 50 }),
      scorePoint({ turnIndex: 0, value: 100 }),
      scorePoint({ turnIndex: 4, value: 70 }),
      scorePoint({ sim: sims[1], turnIndex: 4, value: 10 }),
      scorePoint({ sim: sims[1], turnIndex: 0, value: null }),
    ];
    expect(meanAlong(points, sims, 'turnIndex')).toEqual([
      { x: 0, s0: 100, s1: null },
      { x: 4, s0: 60, s1: 10 },
    ]);
  });

  it('groups long histories into equal-width buckets named by their lower edge', () => {
    const points = Array.from({ length: 100 }, (_, length) =>
      scorePoint({ historyLength: length, value: length }),
    );
    const rows = meanAlong(points, ['replay'], 'historyLength', 20);
    expect(rows).toHaveLength(20);
    expect(rows[0]).toEqual({ x: 0, s0: 2 });
    expect(rows[19]).toEqual({ x: 95, s0: 97 });
  });

  it('is empty without scored points', () => {
    expect(meanAlong([scorePoint({ value: null })], sims, 'turnIndex')).toEqual([]);
  });
});

describe('cost vs score', () => {
  it('uses latency for local simulators and tokens once an endpoint used any', () => {
    const local = [scorePoint({ latencyMs: 2 }), scorePoint({ latencyMs: 3 })];
    expect(defaultCostAxis(local)).toBe('latency');
    const remote = [...local, scorePoint({ sim: sims[1], inputTokens: 1200, outputTokens: 34 })];
    expect(defaultCostAxis(remote)).toBe('tokens');
    expect(costVsScore(remote, sims, 'tokens')).toEqual([
      [
        { cost: 0, score: 100, itemId: 'item-1' },
        { cost: 0, score: 100, itemId: 'item-1' },
      ],
      [{ cost: 1234, score: 100, itemId: 'item-1' }],
    ]);
    expect(costVsScore(remote, sims, 'latency')[0]?.map((point) => point.cost)).toEqual([2, 3]);
  });
});

describe('lineChartSpecs', () => {
  it('draws one chart, saying so, when history length is the turn index for every item', () => {
    const points = [
      scorePoint({ turnIndex: 0, historyLength: 0 }),
      scorePoint({ turnIndex: 4, historyLength: 4 }),
    ];
    expect(lineChartSpecs(points).map((spec) => [spec.title, spec.x.title, spec.y.title])).toEqual([
      [
        'Score vs turn index (= history length: each item shows its whole history)',
        'Turn index (0 = first transition)',
        'Mean score (0–100)',
      ],
    ]);
  });

  it('draws both, each with its own axis title, when the history is cut', () => {
    const points = [
      scorePoint({ turnIndex: 0, historyLength: 0 }),
      scorePoint({ turnIndex: 30, historyLength: 8 }),
    ];
    expect(lineChartSpecs(points).map((spec) => [spec.axis, spec.x.title])).toEqual([
      ['turnIndex', 'Turn index (0 = first transition)'],
      ['historyLength', 'History length (earlier turns shown)'],
    ]);
  });

  it('gives every other chart axis a title with its unit', () => {
    expect([HISTOGRAM_AXES.x.title, HISTOGRAM_AXES.y.title, ITEM_SCORE_AXIS.title]).toEqual([
      'Item score (0–100), in bins of 10',
      'Items',
      'Item score (0–100)',
    ]);
    expect(COST_AXES).toEqual({
      tokens: { title: 'Tokens per prediction (input + output)' },
      latency: { title: 'Latency per prediction (ms)' },
    });
  });
});
