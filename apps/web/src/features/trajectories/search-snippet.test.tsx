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

  it('keeps at most a few words of context before the first mark, whole words first', () => {
    const text = 'Collecting pip Installing build dependencies ... done';
    const at = text.indexOf('Installing');
    const lead = (highlights: [number, number][], max?: number) =>
      snippetSegments({ text, highlights }, max)[0];
    expect(lead([[at, at + 10]], 12)).toEqual({ text: '…pip ', highlighted: false });
    // No space inside the last 12 characters: cut there, mid-word.
    expect(lead([[44, 48]], 12)).toEqual({ text: '…dependencies', highlighted: false });
    expect(lead([[at, at + 10]], 40)).toEqual({ text: 'Collecting pip ', highlighted: false });
    // Only the text before the first mark is cut; between marks it stays whole.
    expect(
      snippetSegments(
        {
          text,
          highlights: [
            [0, 10],
            [at, at + 10],
          ],
        },
        2,
      )[1],
    ).toEqual({
      text: ' pip ',
      highlighted: false,
    });
  });

  it('marks the match, names the step, and shows markup in a log as text', () => {
    const { container } = render(<SearchSnippet match={match} />);
    expect(screen.getByText('mia_li_3668').tagName).toBe('MARK');
    // The context before the mark is cut to its last word or two, so the mark stays in view.
    expect(screen.getByTestId('search-snippet').textContent).toBe(
      `step 4 observation: …${match.text.slice(12)}`,
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
