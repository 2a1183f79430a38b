import { cleanup, screen } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import { renderWithApi } from '../../app/render-with-api.fixture';
import { fakeApiClient } from '../../app/trpc.fixture';
import { cellItem } from './bench.fixture';
import { ItemDetail } from './item-detail';

afterEach(cleanup);

function renderItem(item: ReturnType<typeof cellItem>) {
  // No dataset is listed, so the Compare link stays pending: this test reads the header only.
  const api = fakeApiClient(({ path }) => {
    if (path === 'datasets.list') return [];
    throw new Error(`unexpected call ${path}`);
  });
  renderWithApi(<ItemDetail item={item} runId="1" />, api.client);
}

describe('ItemDetail', () => {
  it('gives the step the replay and Compare open at beside the turn, as they number differently', () => {
    renderItem(
      cellItem({
        turnIndex: 6,
        totalTurns: 23,
        origin: { dataset: 'd', trajectory: 't', stepIndex: 13 },
      }),
    );
    const header = screen.getByTestId('item-detail').querySelector('header .muted');
    expect(header?.textContent).toBe('turn 7 / 23 (step 14) · history 3 · 3.5 ms');
  });

  it('gives the turn alone for an imported item, which has no step', () => {
    renderItem(cellItem({ origin: { dataset: null, trajectory: null, stepIndex: null } }));
    const header = screen.getByTestId('item-detail').querySelector('header .muted');
    expect(header?.textContent).toBe('turn 4 / 9 · history 3 · 3.5 ms');
  });

  it('names the trajectory the item was taken from, as the trajectory lists do', () => {
    renderItem(cellItem());
    expect(screen.getByTestId('item-trajectory').textContent).toBe('task 13 · trial 0');
    expect(screen.queryByTestId('item-trajectory-detail')).toBeNull();
    cleanup();
    // A SWE-agent run: the instance, then the settings that tell runs of it apart.
    renderItem(
      cellItem({
        trajectory: {
          externalId:
            'replay__function_calling__install-1__marshmallow-code__marshmallow-1867.traj',
          taskId: null,
          trial: null,
        },
      }),
    );
    expect(screen.getByTestId('item-trajectory').textContent).toBe(
      'marshmallow-code__marshmallow-1867',
    );
    expect(screen.getByTestId('item-trajectory-detail').textContent).toBe(
      'replay__function_calling__install-1',
    );
    cleanup();
    renderItem(cellItem({ trajectory: null }));
    expect(screen.getByTestId('item-trajectory').textContent).toBe('imported item');
  });
});
