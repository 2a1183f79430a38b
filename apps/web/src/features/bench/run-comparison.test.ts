import type { CellDelta } from '@terrarium/schema';
import { describe, expect, it } from 'vitest';
import { leaderboardCell } from './bench.fixture';
import { deltaDirection, deltaRows } from './run-comparison';

function delta(overrides: Partial<CellDelta>): CellDelta {
  return {
    sim: 'retrieval',
    task: 'overall',
    source: 'rule',
    metric: 'content',
    before: leaderboardCell({ sim: 'retrieval', mean: 30 }),
    after: leaderboardCell({ sim: 'retrieval', mean: 40 }),
    delta: 10,
    separated: true,
    ...overrides,
  };
}

describe('run comparison', () => {
  it('groups one score’s deltas per simulator in run order with overall and macro first', () => {
    const rows = deltaRows(
      [
        delta({ task: 'tau2-bench/retail' }),
        delta({ sim: 'replay', task: 'overall' }),
        delta({ task: 'macro' }),
        delta({ task: 'overall', metric: 'exact-match' }),
        delta({ task: 'overall', source: 'judge' }),
        delta({ task: 'overall' }),
      ],
      { source: 'rule', metric: 'content' },
      ['replay', 'retrieval'],
    );
    expect(rows.map((row) => [row.sim, row.cells.map((cell) => cell.task)])).toEqual([
      ['replay', ['overall']],
      ['retrieval', ['overall', 'macro', 'tau2-bench/retail']],
    ]);
  });

  it('calls a change better or worse only when the intervals are apart', () => {
    expect(deltaDirection({ delta: 10, separated: true })).toBe('better');
    expect(deltaDirection({ delta: -4, separated: true })).toBe('worse');
    expect(deltaDirection({ delta: -4, separated: false })).toBe('same');
    expect(deltaDirection({ delta: null, separated: false })).toBe('unknown');
  });
});
