import { cleanup, render, screen } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import { benchRun } from './bench.fixture';
import { RunsTable } from './runs-table';

afterEach(cleanup);

describe('RunsTable', () => {
  it('counts a run’s units as the run page does: done, failed and in all', () => {
    render(
      <RunsTable
        runs={[
          benchRun({ id: 'run-1', status: 'done', done: 1933, failed: 159, total: 2092 }),
          benchRun({ id: 'run-2', status: 'running', done: 40, failed: 0, total: 200 }),
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
});
