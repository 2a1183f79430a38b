import { cleanup, render, screen, within } from '@testing-library/react';
import type { DatasetSummary } from '@terrarium/schema';
import { afterEach, describe, expect, it } from 'vitest';
import { EMPTY_LIST_QUERY, type ListQuery } from '../../app/url-state';
import { TrajectoryFilters } from './trajectory-filters';

afterEach(cleanup);

type Facets = Pick<DatasetSummary, 'domains' | 'formats' | 'outcomes'>;

function outcomeChoices(datasets: readonly Facets[] | null, outcome: 'failure' | null = null) {
  cleanup();
  render(
    <TrajectoryFilters
      query={{ ...EMPTY_LIST_QUERY, outcome }}
      datasets={datasets}
      onChange={() => undefined}
    />,
  );
  const select = screen.getByLabelText('Outcome');
  return {
    disabled: select instanceof HTMLSelectElement && select.disabled,
    options: within(select)
      .getAllByRole('option')
      .map((option) => option.textContent),
  };
}

const tau: Facets = {
  domains: ['tool'],
  formats: ['tau-bench-v1'],
  outcomes: ['success', 'failure'],
};
const swe: Facets = { domains: ['swe'], formats: ['swe-agent'], outcomes: ['unknown'] };

describe('the outcome filter', () => {
  it('offers only the outcomes the datasets in view record', () => {
    expect(outcomeChoices([tau])).toEqual({
      disabled: false,
      options: ['any', 'success', 'failure'],
    });
    expect(outcomeChoices([tau, swe]).options).toEqual(['any', 'success', 'failure', 'unknown']);
  });

  it('says none is recorded, rather than offering "unknown" alone, where no trajectory has one', () => {
    expect(outcomeChoices([swe])).toEqual({ disabled: true, options: ['none recorded'] });
  });

  it('keeps a value a link selected, and offers all three while the datasets load', () => {
    expect(outcomeChoices([swe], 'failure')).toEqual({
      disabled: false,
      options: ['any', 'failure', 'unknown'],
    });
    expect(outcomeChoices(null).options).toEqual(['any', 'success', 'failure', 'unknown']);
  });
});

/** The note the step bounds show, or null. */
function stepBoundsNote(minSteps: number, maxSteps: number): string | null {
  cleanup();
  render(
    <TrajectoryFilters
      query={{ ...EMPTY_LIST_QUERY, minSteps, maxSteps }}
      datasets={[tau]}
      onChange={() => undefined}
    />,
  );
  return screen.queryByTestId('step-bounds-crossed')?.textContent ?? null;
}

describe('the step bounds', () => {
  it('say when the minimum is above the maximum, rather than just listing nothing', () => {
    expect(stepBoundsNote(10, 5)).toBe(
      'The minimum is above the maximum: no trajectory can match.',
    );
    expect(stepBoundsNote(5, 5)).toBeNull();
  });
});

/** The options a select of the rendered filters offers. */
function choices(label: string) {
  return within(screen.getByLabelText(label))
    .getAllByRole('option')
    .map((option) => option.textContent);
}

describe('domain and source', () => {
  it('offer what the datasets the other one leaves hold', () => {
    const intercode: Facets = {
      domains: ['terminal', 'database'],
      formats: ['intercode'],
      outcomes: ['success', 'failure'],
    };
    const renderWith = (query: Partial<ListQuery>) =>
      render(
        <TrajectoryFilters
          query={{ ...EMPTY_LIST_QUERY, ...query }}
          datasets={[tau, swe, intercode]}
          onChange={() => undefined}
        />,
      );
    renderWith({ domain: 'database' });
    // Only InterCode holds database trajectories: no tau-bench or SWE-agent source to pick.
    expect(choices('Source format')).toEqual(['any', 'intercode']);
    // The domain filter is left by the source filter (any), so it offers every domain held.
    expect(choices('Domain')).toEqual(['any', 'terminal', 'tool', 'swe', 'database']);
    cleanup();
    renderWith({ format: 'swe-agent' });
    expect(choices('Domain')).toEqual(['any', 'swe']);
  });
});
