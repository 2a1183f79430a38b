import { cleanup, render, screen } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import { TrajectoryHeading } from './trajectory-heading';

afterEach(cleanup);

describe('TrajectoryHeading', () => {
  it('says the id once when the name is the id (an InterCode task)', () => {
    render(<TrajectoryHeading trajectory={{ externalId: 'sql-42', taskId: null, trial: null }} />);
    expect(screen.getByTestId('trajectory-name').textContent).toBe('sql-42');
    expect(screen.queryByTestId('trajectory-title')).toBeNull();
  });

  it('names tau-bench v1 `task-0-trial-0` as tau2 ids are named, the id beside it', () => {
    render(
      <TrajectoryHeading trajectory={{ externalId: 'task-0-trial-0', taskId: '0', trial: '0' }} />,
    );
    expect(screen.getByTestId('trajectory-name').textContent).toBe('task 0 · trial 0');
    expect(screen.getByTestId('trajectory-title').textContent).toBe('task-0-trial-0');
  });

  it('shows the source’s opaque id beside the name made from task and trial', () => {
    const uuid = '55094b9e-ef3e-42b4-8ca2-18e82cd7e7ae';
    render(<TrajectoryHeading trajectory={{ externalId: uuid, taskId: '12', trial: '1' }} />);
    expect(screen.getByTestId('trajectory-name').textContent).toBe('task 12 · trial 1');
    expect(screen.getByTestId('trajectory-title').textContent).toBe(uuid);
  });
});
