import { cleanup, render, screen, within } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import { benchItem, benchTurn, labelingItem } from './labeling.fixture';
import { LabelingItemView } from './labeling-item-view';

afterEach(cleanup);

function renderWithHistory(turns: number) {
  const history = Array.from({ length: turns }, (_, index) => benchTurn(index + 1));
  render(<LabelingItemView view={labelingItem({ item: benchItem({ history }) })} />);
  return screen.getByRole('region', { name: 'History' });
}

describe('LabelingItemView history', () => {
  it('counts one hidden earlier turn in the singular', () => {
    const history = renderWithHistory(4);
    expect(within(history).getByRole('heading', { name: /^History/ }).textContent).toBe(
      'History (4 turns)',
    );
    expect(history.querySelector('summary')?.textContent).toBe('1 earlier turn');
  });

  it('counts several hidden earlier turns in the plural', () => {
    const history = renderWithHistory(5);
    expect(history.querySelector('summary')?.textContent).toBe('2 earlier turns');
  });

  it('says "1 turn" for a one-turn history, with nothing hidden', () => {
    const history = renderWithHistory(1);
    expect(within(history).getByRole('heading', { name: /^History/ }).textContent).toBe(
      'History (1 turn)',
    );
    expect(history.querySelector('summary')).toBeNull();
  });

  it('says when the simulator saw its own predictions instead of the recorded history', () => {
    const history = Array.from({ length: 4 }, (_, index) => benchTurn(index + 1));
    const item = benchItem({ history });
    render(<LabelingItemView view={labelingItem({ item, mode: { kind: 'closed', steps: 3 } })} />);
    expect(screen.getByTestId('closed-loop-note').textContent).toBe(
      'Closed loop: for this prediction the simulator saw its own predictions in place of the recorded observations of up to the last 3 turns of the history; the recorded ones are what is shown.',
    );
    cleanup();
    render(<LabelingItemView view={labelingItem({ item })} />);
    expect(screen.queryByTestId('closed-loop-note')).toBeNull();
  });
});
