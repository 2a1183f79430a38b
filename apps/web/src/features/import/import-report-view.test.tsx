import { cleanup, render, screen } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import { ImportReportView } from './import-report-view';

afterEach(cleanup);

describe('ImportReportView', () => {
  it('lists the files that gave 0 transitions with their reason', () => {
    render(
      <ImportReportView
        report={{
          dataset: 'd',
          format: 'mini-swe-agent',
          trajectories: 1,
          transitions: 0,
          quarantined: 0,
          errors: [],
          warnings: [
            {
              file: 'cut.traj.json',
              reason:
                'recognized as mini-swe-agent but yields 0 transitions: none of 1 action has an observation',
            },
          ],
        }}
      />,
    );
    expect(screen.getByTestId('import-warnings').textContent).toBe(
      'cut.traj.json: recognized as mini-swe-agent but yields 0 transitions: none of 1 action has an observation',
    );
  });

  it('names the line of a record whose tool-call arguments were kept as text', () => {
    render(
      <ImportReportView
        report={{
          dataset: 'd',
          format: 'openai-messages',
          trajectories: 2,
          transitions: 4,
          quarantined: 0,
          errors: [],
          warnings: [
            {
              file: 'weather.jsonl',
              line: 2,
              reason: 'messages[2].tool_calls[0].function.arguments: not valid JSON (kept as text)',
            },
            { file: '*', reason: '3 more warnings not listed' },
          ],
        }}
      />,
    );
    expect(
      Array.from(screen.getByTestId('import-warnings').children, (item) => item.textContent),
    ).toEqual([
      'weather.jsonl:2: messages[2].tool_calls[0].function.arguments: not valid JSON (kept as text)',
      '3 more warnings not listed',
    ]);
  });

  it('shows no warning list when there is none', () => {
    render(
      <ImportReportView
        report={{
          dataset: 'd',
          format: 'atif',
          trajectories: 1,
          transitions: 3,
          quarantined: 0,
          errors: [],
        }}
      />,
    );
    expect(screen.queryByTestId('import-warnings')).toBeNull();
  });
});
