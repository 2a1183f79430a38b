import { describe, expect, it } from 'vitest';
import { leaderboardCell } from './bench.fixture';
import {
  hasScore,
  intervalBar,
  leaderboardGrid,
  metricGroups,
  metricLabel,
  orderTasks,
  partialResultsText,
  scoresBySource,
} from './leaderboard';

describe('metricGroups', () => {
  it('keeps rule, judge and human metrics in separate groups, each in its canonical order', () => {
    const cells = [
      leaderboardCell({ source: 'human', metric: 'helpfulness' }),
      leaderboardCell({ source: 'judge', metric: 'realism' }),
      leaderboardCell({ source: 'rule', metric: 'token-f1' }),
      leaderboardCell({ source: 'judge', metric: 'format' }),
      leaderboardCell({ source: 'rule', metric: 'content' }),
      leaderboardCell({ source: 'rule', metric: 'exact-match' }),
      leaderboardCell({ source: 'rule', metric: 'exact-match', sim: 'retrieval' }),
    ];
    expect(metricGroups(cells)).toEqual([
      { source: 'rule', metrics: ['content', 'exact-match', 'token-f1'] },
      { source: 'judge', metrics: ['format', 'realism'] },
      { source: 'human', metrics: ['helpfulness'] },
    ]);
  });

  it('leaves out a source without metrics', () => {
    expect(metricGroups([leaderboardCell({ source: 'judge', metric: 'quality' })])).toEqual([
      { source: 'judge', metrics: ['quality'] },
    ]);
  });
});

describe('leaderboardGrid', () => {
  const cells = [
    leaderboardCell({ sim: 'retrieval', task: 'tau2-bench/retail', mean: 31.5 }),
    leaderboardCell({ sim: 'retrieval', task: 'overall', mean: 30 }),
    leaderboardCell({ sim: 'replay', task: 'macro', mean: 100 }),
    leaderboardCell({ sim: 'replay', task: 'overall', mean: 100 }),
    leaderboardCell({ sim: 'replay', task: 'overall', metric: 'exact-match', mean: 98 }),
    leaderboardCell({ sim: 'retrieval', task: 'overall', source: 'judge', mean: 12 }),
    leaderboardCell({ sim: 'replay', task: 'tau2-bench/airline', mean: 100 }),
  ];

  it('lays one (source, metric) out as simulators in run order × overall, macro, then tasks', () => {
    const grid = leaderboardGrid(cells, { source: 'rule', metric: 'content' }, [
      'replay',
      'retrieval',
    ]);
    expect(grid.sims).toEqual(['replay', 'retrieval']);
    expect(grid.tasks).toEqual(['overall', 'macro', 'tau2-bench/airline', 'tau2-bench/retail']);
    expect(grid.cellAt('retrieval', 'overall')?.mean).toBe(30);
    expect(grid.cellAt('retrieval', 'macro')).toBeNull();
  });

  it('never mixes in a judge cell with the same metric name', () => {
    const grid = leaderboardGrid(cells, { source: 'judge', metric: 'content' }, ['replay']);
    expect(grid.sims).toEqual(['retrieval']);
    expect(grid.tasks).toEqual(['overall']);
    expect(grid.cellAt('retrieval', 'overall')?.mean).toBe(12);
  });

  it('says whether a score is present', () => {
    expect(hasScore(cells, { source: 'rule', metric: 'exact-match' })).toBe(true);
    expect(hasScore(cells, { source: 'human', metric: 'exact-match' })).toBe(false);
  });
});

describe('labels and bars', () => {
  it('names rule metrics by their fidelity label and judge dimensions capitalised', () => {
    expect(metricLabel({ source: 'rule', metric: 'exact-match' })).toBe('Exact match');
    expect(metricLabel({ source: 'rule', metric: 'content' })).toBe('Content');
    expect(metricLabel({ source: 'judge', metric: 'factuality' })).toBe('Factuality');
  });

  it('orders overall and macro before tasks', () => {
    expect(orderTasks(['b', 'macro', 'a', 'overall', 'a'])).toEqual(['overall', 'macro', 'a', 'b']);
  });

  it('clamps the interval to 0-100 and draws a point for a cell without one', () => {
    expect(intervalBar({ mean: 97.5, ciLow: 92, ciHigh: 100.4 })).toEqual({
      low: 92,
      high: 100,
      mean: 97.5,
    });
    expect(intervalBar({ mean: 40, ciLow: null, ciHigh: null })).toEqual({
      low: 40,
      high: 40,
      mean: 40,
    });
    expect(intervalBar({ mean: null, ciLow: null, ciHigh: null })).toBeNull();
  });
});

describe('scoresBySource', () => {
  it('splits an item’s scores by source in canonical order and drops unknown keys', () => {
    expect(
      scoresBySource({
        'judge:realism': 75,
        'rule:exact-match': 0,
        'judge:format': 100,
        'rule:content': 40,
        'rule:numeric-closeness': null,
        'human:helpfulness': 50,
        stray: 1,
      }),
    ).toEqual([
      {
        source: 'rule',
        scores: [
          { metric: 'content', value: 40 },
          { metric: 'exact-match', value: 0 },
          { metric: 'numeric-closeness', value: null },
        ],
      },
      {
        source: 'judge',
        scores: [
          { metric: 'format', value: 100 },
          { metric: 'realism', value: 75 },
        ],
      },
      { source: 'human', scores: [{ metric: 'helpfulness', value: 50 }] },
    ]);
  });
});

describe('partialResultsText', () => {
  it('says the table is as of its last refresh and leaves the count of units to the progress bar', () => {
    expect(partialResultsText({ source: 'rule', metric: 'content' }, true)).toBe(
      "Partial results as of the table's last refresh: means of the units scored by then, each cell's n counting them (the progress bar counts live). 95% intervals once the run ends.",
    );
    expect(partialResultsText({ source: 'judge', metric: 'overall' }, false)).toBe(
      "No judge scores for overall among the units recorded by the table's last refresh (the progress bar counts live).",
    );
  });
});
