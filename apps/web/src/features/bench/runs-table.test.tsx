import { cleanup, render, screen } from '@testing-library/react';
import type { JudgeConfig } from '@terrarium/schema';
import { afterEach, describe, expect, it } from 'vitest';
import { listedRun } from './bench.fixture';
import { RunsTable } from './runs-table';

afterEach(cleanup);

describe('RunsTable', () => {
  it('counts a run’s units as the run page does: done, failed and in all', () => {
    render(
      <RunsTable
        runs={[
          listedRun({ id: 'run-1', status: 'done', done: 1933, failed: 159, total: 2092 }),
          listedRun({ id: 'run-2', status: 'running', done: 40, failed: 0, total: 200 }),
        ]}
      />,
    );
    // Every unit recorded but 159 failed: never `2,092 / 2,092`, which read as complete.
    const units = screen.getAllByTestId('run-units');
    expect(units.map((cell) => cell.textContent)).toEqual([
      '1,933 done · 159 failed · 2,092 total',
      '40 done · 0 failed · 200 total',
    ]);
    expect(units.map((cell) => cell.querySelector('.status-error')?.textContent ?? null)).toEqual([
      '159 failed',
      null,
    ]);
  });

  it('tags the oracle among a run’s simulators, as the leaderboard and the CLI do', () => {
    render(<RunsTable runs={[listedRun({ id: 'run-1' })]} />);
    const oracle = screen.getByTestId('oracle-tag');
    expect(oracle.closest('td')?.textContent).toBe('replay oracle, retrieval');
  });

  it('names each run’s judge, the verdicts it owes, and what its simulator and judge calls cost together', () => {
    const judge: JudgeConfig = {
      spec: 'openai:http://127.0.0.1:4828/v1#judge',
      temperature: 0,
      repeats: 3,
      mode: 'score',
    };
    render(
      <RunsTable
        runs={[
          listedRun({ id: 'local', usage: { inputTokens: 0, outputTokens: 0, costUsd: 0 } }),
          listedRun({
            id: 'judged',
            judge,
            usage: { inputTokens: 88_700, outputTokens: 8870, costUsd: 0.25 },
            judgeUsage: { inputTokens: 3_738_274, outputTokens: 83_680, costUsd: 10.182485 },
          }),
          listedRun({
            id: 'partly-priced',
            judge,
            missingVerdicts: 1,
            usage: { inputTokens: 0, outputTokens: 0, costUsd: 0 },
            judgeUsage: {
              inputTokens: 1_000,
              outputTokens: 100,
              costUsd: null,
              unpriced: { units: 21, knownUsd: 0.6355 },
            },
          }),
          listedRun({ id: 'old', judge, judgeUsage: null }),
          listedRun({
            id: 'unpriced-simulator',
            judge,
            missingVerdicts: 1204,
            usage: { inputTokens: 5_000, outputTokens: 700, costUsd: null },
            judgeUsage: { inputTokens: 6_600, outputTokens: 1_320, costUsd: 0.132 },
          }),
        ]}
      />,
    );
    expect(screen.getAllByTestId('run-judge').map((cell) => cell.textContent)).toEqual([
      '—',
      'score · k=3',
      'score · k=3 · 1 verdict missing',
      'score · k=3',
      'score · k=3 · 1,204 verdicts missing',
    ]);
    expect(screen.getAllByTestId('run-verdicts-missing').map((cell) => cell.className)).toEqual([
      'status-error',
      'status-error',
    ]);
    const costs = screen.getAllByTestId('run-cost');
    expect(costs.map((cell) => cell.textContent)).toEqual([
      '$0.00',
      '$10.4325',
      'simulators $0.00 · judge at least $0.6355 (the cost of 21 judgings is not known)',
      '$0.00 (judge not recorded)',
      // A simulator with no price: not "at least $0.132", which would read as partly measured.
      'simulators cost not priced · judge $0.132',
    ]);
    // The split, as the run page says it, on hover.
    expect(costs[1]?.getAttribute('title')).toBe(
      '88,700 in / 8,870 out simulator tokens · $0.25 · judge 3,738,274 in / 83,680 out tokens · $10.1825',
    );
  });
});
