import { cleanup, render, screen } from '@testing-library/react';
import type { JudgeConfig, ScoreSelector } from '@terrarium/schema';
import { afterEach, describe, expect, it } from 'vitest';
import { cellDelta as delta, leaderboardCell } from './bench.fixture';
import { DeltaTable } from './run-compare-page';

afterEach(cleanup);

const judge: JudgeConfig = {
  spec: 'openai:http://127.0.0.1:4828/v1#judge',
  temperature: 0,
  repeats: 1,
  mode: 'score',
};

function row(sim: string, task?: string): Element | null {
  const table = screen.getByTestId('delta-table');
  return table.querySelector(
    task === undefined ? `tr[data-sim="${sim}"]` : `tr[data-sim="${sim}"][data-task="${task}"]`,
  );
}

function textOf(sim: string, task: string, testId: string): string | null | undefined {
  return row(sim, task)?.querySelector(`[data-testid="${testId}"]`)?.textContent;
}

const plainRuns = {
  before: { sims: ['replay', 'retrieval'], judge: null },
  after: { sims: ['replay', 'retrieval'], judge: null },
};

describe('DeltaTable', () => {
  it('prints an interval’s bounds with the decimals that show whether it excludes 0', () => {
    render(
      <DeltaTable
        score={{ source: 'rule', metric: 'content' }}
        runs={plainRuns}
        cells={[
          // One decimal printed both as [−0.3, 0.0]: the first excludes 0, the second does not.
          delta({
            task: 'tau2-bench/airline',
            before: leaderboardCell({ sim: 'retrieval', mean: 70.2 }),
            after: leaderboardCell({ sim: 'retrieval', mean: 70.0 }),
            delta: -0.2,
            deltaLow: -0.337,
            deltaHigh: -0.0152,
            significant: true,
          }),
          delta({
            task: 'tau2-bench/retail',
            before: leaderboardCell({ sim: 'retrieval', mean: 60.2 }),
            after: leaderboardCell({ sim: 'retrieval', mean: 60.1 }),
            delta: -0.1,
            deltaLow: -0.264,
            deltaHigh: 0.0354,
            significant: false,
          }),
          delta({ task: 'overall' }),
        ]}
      />,
    );
    expect(textOf('retrieval', 'tau2-bench/airline', 'delta-interval')).toBe(' [−0.34, −0.02]');
    expect(textOf('retrieval', 'tau2-bench/airline', 'delta-significance')).toBe(' ▼ significant');
    expect(textOf('retrieval', 'tau2-bench/retail', 'delta-interval')).toBe(' [−0.26, +0.04]');
    expect(textOf('retrieval', 'tau2-bench/retail', 'delta-significance')).toBe(' not significant');
    // Bounds far from 0 keep the one decimal every score has.
    expect(textOf('retrieval', 'overall', 'delta-interval')).toBe(' [+4.1, +15.9]');
  });

  it('shows each cell’s n and missing items as the run page does', () => {
    render(
      <DeltaTable
        score={{ source: 'rule', metric: 'content' }}
        runs={plainRuns}
        cells={[
          delta({
            before: leaderboardCell({
              sim: 'retrieval',
              mean: 80.04,
              ciLow: 79.1,
              ciHigh: 81.1,
              n: 887,
              missing: 159,
            }),
            after: leaderboardCell({ sim: 'retrieval', mean: 80.1, n: 1046, missing: 0 }),
          }),
        ]}
      />,
    );
    const cells = row('retrieval', 'overall')?.querySelectorAll('[data-testid="cell-n"]');
    expect([...(cells ?? [])].map((cell) => cell.textContent)).toEqual([
      'n=887 · 159 missing',
      'n=1,046',
    ]);
    expect(row('retrieval', 'overall')?.querySelectorAll('td')[1]?.textContent).toBe(
      '80.0 ±1.0 n=887 · 159 missing',
    );
  });

  it('tells a simulator not in a run from a run without the score, and keeps every simulator', () => {
    // The newer run had a judge and no replay; the older had replay and retrieval, no judge.
    const judgeOverall: ScoreSelector = { source: 'judge', metric: 'overall' };
    render(
      <DeltaTable
        score={judgeOverall}
        runs={{
          before: { sims: ['replay', 'retrieval'], judge: null },
          after: { sims: ['retrieval', 'openai:http://127.0.0.1:8000/v1#m'], judge },
        }}
        cells={[
          delta({ ...judgeOverall, before: null, delta: null, deltaLow: null, deltaHigh: null }),
          delta({
            ...judgeOverall,
            sim: 'openai:http://127.0.0.1:8000/v1#m',
            before: null,
            delta: null,
            deltaLow: null,
            deltaHigh: null,
          }),
        ]}
      />,
    );
    expect(textOf('retrieval', 'overall', 'delta-significance')).toBe(
      ' the older run has no judge scores (it had no judge)',
    );
    expect(textOf('openai:http://127.0.0.1:8000/v1#m', 'overall', 'delta-significance')).toBe(
      ' not in the older run',
    );
    // Replay has no judge score in either run: a row still, saying why for each.
    expect(row('replay')?.querySelector('[data-testid="delta-significance"]')?.textContent).toBe(
      'the older run has no judge scores (it had no judge); not in the newer run',
    );
    expect(
      [...screen.getByTestId('delta-table').querySelectorAll('tbody tr')].map((tr) =>
        tr.getAttribute('data-sim'),
      ),
    ).toEqual(['replay', 'retrieval', 'openai:http://127.0.0.1:8000/v1#m']);
  });
});
