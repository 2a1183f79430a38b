import { cleanup, screen, waitFor } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import { renderWithApi } from '../../app/render-with-api.fixture';
import { fakeApiClient } from '../../app/trpc.fixture';
import { cellItem } from './bench.fixture';
import { ItemDetail } from './item-detail';

afterEach(cleanup);

/** What `rulesets.itemBreakdowns` answers, by the walk's item: four rules, content weighing 2. */
const WALK_TOOL_V1 = {
  metric: 'walk-tool@v1',
  score: 0.2,
  breakdown: [
    { id: 'content', kind: 'rule' as const, score: 0, weight: 2 },
    { id: 'json-ok', kind: 'rule' as const, score: 0, weight: 1 },
    { id: 'no-error', kind: 'rule' as const, score: 0, weight: 1 },
    { id: 'nonempty', kind: 'rule' as const, score: 1, weight: 1 },
    { id: 'facts', kind: 'criterion' as const, score: null, weight: 1 },
  ],
};

function renderItem(item: ReturnType<typeof cellItem>) {
  // No dataset is listed, so the Compare link stays pending: this test reads the header only.
  const api = fakeApiClient(({ path }) => {
    if (path === 'datasets.list') return [];
    if (path === 'rulesets.itemBreakdowns') return [WALK_TOOL_V1];
    throw new Error(`unexpected call ${path}`);
  });
  renderWithApi(<ItemDetail item={item} runId="1" />, api.client);
  return api.calls;
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

  it("shows why a saved rule set scored the item as it did: each rule's value and weight (walk 52)", async () => {
    const calls = renderItem(
      cellItem({ scores: { 'rule:content': 40, 'rule:walk-tool@v1': 20, 'judge:factuality': 25 } }),
    );
    const line = await screen.findByTestId('item-breakdown');
    expect(line.getAttribute('data-metric')).toBe('walk-tool@v1');
    expect(line.textContent).toBe(
      'walk-tool@v1 20.0: content: 0.0 (weight 2) · json-ok: 0.0 (weight 1) · ' +
        'no-error: 0.0 (weight 1) · nonempty: 100.0 (weight 1) · unscored criteria: facts',
    );
    expect(calls.filter((call) => call.path === 'rulesets.itemBreakdowns')).toEqual([
      {
        path: 'rulesets.itemBreakdowns',
        input: { runId: '1', sim: 'retrieval', itemId: 'item-1' },
      },
    ]);
  });

  it('asks for no breakdown when no saved rule set scored the item', async () => {
    const calls = renderItem(cellItem());
    // Every query of the panel starts as it mounts: once one has been asked, all have.
    await waitFor(() => expect(calls.map((call) => call.path)).toContain('datasets.list'));
    expect(calls.map((call) => call.path).filter((path) => path.startsWith('rulesets.'))).toEqual(
      [],
    );
    expect(screen.queryByRole('region', { name: 'Rule-set breakdowns' })).toBeNull();
  });
});
