import type { SearchMatch, TrajectorySummary } from '@terrarium/schema';
import { cleanup, render, screen } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import { SearchSnippet, snippetSegments } from './search-snippet';
import { replayRoute } from './trajectory-table';

const match: SearchMatch = {
  step: 3,
  field: 'observation',
  text: '{"user_id": "mia_li_3668", "note": "<img src=x onerror=alert(1)>"}',
  highlights: [[13, 24]],
};

afterEach(cleanup);

describe('search snippets in the trajectory list', () => {
  it('cuts the excerpt at its highlights, skipping ranges that do not fit', () => {
    expect(
      snippetSegments({
        text: 'a keyboard b',
        highlights: [
          [2, 10],
          [1, 3],
          [11, 40],
        ],
      }),
    ).toEqual([
      { text: 'a ', highlighted: false },
      { text: 'keyboard', highlighted: true },
      { text: ' b', highlighted: false },
    ]);
  });

  it('marks the match, names the step, and shows markup in a log as text', () => {
    const { container } = render(<SearchSnippet match={match} />);
    expect(screen.getByText('mia_li_3668').tagName).toBe('MARK');
    expect(screen.getByTestId('search-snippet').textContent).toBe(
      `step 4 observation: ${match.text}`,
    );
    expect(container.querySelector('img')).toBeNull();
  });

  it('opens the replay at the matching step, else at the first', () => {
    const row: TrajectorySummary = {
      id: '7',
      datasetId: '2',
      externalId: 'x',
      sourceFormat: 'tau2-bench',
      sourceBenchmark: null,
      domain: 'tool',
      task: null,
      agentModel: null,
      outcome: { reward: null, success: null },
      stepCount: 9,
      transitionCount: 4,
      taskId: null,
      trial: null,
    };
    // The words it matched travel with it, to be marked where the step shows them.
    expect(replayRoute({ ...row, match })).toEqual({
      page: 'replay',
      datasetId: '2',
      trajectoryId: '7',
      step: 3,
      marks: ['mia_li_3668'],
    });
    expect(replayRoute(row)).toEqual({
      page: 'replay',
      datasetId: '2',
      trajectoryId: '7',
      step: 0,
    });
  });
});
