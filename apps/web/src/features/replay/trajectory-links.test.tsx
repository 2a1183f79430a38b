import { cleanup, render, screen } from '@testing-library/react';
import { TRAJECTORY_LINKS_KEY } from '@terrarium/schema';
import { afterEach, describe, expect, it } from 'vitest';
import { TrajectoryLinks } from './trajectory-links';

afterEach(cleanup);

// The links the ATIF reader stores for packages/formats/fixtures/atif-terminus2-raw.trajectory.json
// (asserted there in atif.test.ts), plus an entry of an unknown kind that must be left out.
const METADATA = {
  [TRAJECTORY_LINKS_KEY]: [
    {
      kind: 'subagent',
      sessionId: 'count-lines__terminus2-0007-summarization-1-summary',
      path: 'trajectory.summarization-1-summary.json',
      stepIndex: 3,
    },
    { kind: 'continuation', sessionId: null, path: 'trajectory.cont-1.json', stepIndex: null },
    { kind: 'sibling', sessionId: 'x', path: null, stepIndex: null },
  ],
};

describe('TrajectoryLinks', () => {
  it('shows the subagent run and the continuation of a Terminus-2 ATIF file as links', () => {
    render(
      <dl>
        <TrajectoryLinks datasetId="7" metadata={METADATA} />
      </dl>,
    );
    const items = screen.getByTestId('trajectory-links').querySelectorAll('li');
    expect([...items].map((item) => item.textContent)).toEqual([
      'Subagent run count-lines__terminus2-0007-summarization-1-summary (from step 4)',
      'Continues in trajectory.cont-1.json',
    ]);
    expect(
      [...screen.getByTestId('trajectory-links').querySelectorAll('a')].map((a) =>
        a.getAttribute('href'),
      ),
    ).toEqual([
      '/datasets/7?q=count-lines__terminus2-0007-summarization-1-summary',
      '/datasets/7?q=trajectory.cont-1.json',
    ]);
  });

  it('renders nothing for a trajectory without links', () => {
    const { container } = render(<TrajectoryLinks datasetId="7" metadata={{ notes: 'x' }} />);
    expect(container.innerHTML).toBe('');
  });
});
