import { cleanup, screen } from '@testing-library/react';
import type { DatasetSummary } from '@terrarium/schema';
import { afterEach, describe, expect, it } from 'vitest';
import { renderWithApi } from '../../app/render-with-api.fixture';
import { fakeApiClient } from '../../app/trpc.fixture';
import { EMPTY_LIST_QUERY } from '../../app/url-state';
import { TrajectoryListPage } from './trajectory-list-page';

afterEach(cleanup);

const AIRLINE: DatasetSummary = {
  id: '2',
  name: 'tau-bench-airline',
  createdAt: '2026-12-04T05:00:00.000Z',
  trajectories: 200,
  transitions: 1164,
  steps: 4034,
  quarantined: 0,
  domains: ['tool'],
  formats: ['tau-bench-v1'],
  outcomes: ['failure', 'success'],
};

function renderPage(datasetId: string) {
  const api = fakeApiClient(({ path }) => {
    if (path === 'datasets.list') return [AIRLINE];
    if (path === 'trajectories.list') return { total: 0, rows: [] };
    throw new Error(`unexpected call ${path}`);
  });
  renderWithApi(<TrajectoryListPage datasetId={datasetId} query={EMPTY_LIST_QUERY} />, api.client);
}

describe('TrajectoryListPage', () => {
  it('says that no dataset has an unknown id instead of showing it as an empty dataset', async () => {
    renderPage('999');
    // Until the datasets are listed the id is the title; then the page says what it is.
    expect(await screen.findByRole('heading', { level: 1, name: 'No such dataset' })).toBeTruthy();
    expect(screen.getByTestId('no-such-dataset').textContent).toBe(
      'No dataset has the id 999; it may have been deleted. See the datasets there are.',
    );
    expect(screen.queryByTestId('trajectory-total')).toBeNull();
  });

  it("titles a dataset's page with its name", async () => {
    renderPage('2');
    expect(
      await screen.findByRole('heading', { level: 1, name: 'tau-bench-airline' }),
    ).toBeTruthy();
    expect(screen.queryByTestId('no-such-dataset')).toBeNull();
  });
});
