import { cleanup, screen } from '@testing-library/react';
import type { DatasetSummary, TrajectorySummary } from '@terrarium/schema';
import { afterEach, describe, expect, it, onTestFinished, vi } from 'vitest';
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

const RETAIL: DatasetSummary = {
  ...AIRLINE,
  id: '3',
  name: 'tau2-retail',
  formats: ['tau2-bench'],
};

const ROW: TrajectorySummary = {
  id: '41',
  datasetId: '3',
  externalId: '55094b9e-ef3e-42b4-8ca2-18e82cd7e7ae',
  sourceFormat: 'tau2-bench',
  sourceBenchmark: 'tau2-bench',
  domain: 'tool',
  task: 'Domain: retail',
  agentModel: 'gpt-4.1',
  outcome: { reward: 1, success: true },
  stepCount: 14,
  transitionCount: 4,
  taskId: '0',
  trial: '0',
};

function renderPage(datasetId: string | null, rows: TrajectorySummary[] = []) {
  const api = fakeApiClient(({ path }) => {
    if (path === 'datasets.list') return [AIRLINE, RETAIL];
    if (path === 'trajectories.list') return { total: rows.length, rows };
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

  it('names each row’s dataset when the list spans datasets, and only then', async () => {
    // jsdom lays nothing out: the list's scroll box gets a height so its virtualizer shows rows.
    const height = vi.spyOn(HTMLElement.prototype, 'clientHeight', 'get').mockReturnValue(600);
    onTestFinished(() => height.mockRestore());
    renderPage(null, [ROW]);
    expect((await screen.findByTestId('trajectory-dataset')).textContent).toBe('tau2-retail');
    expect(screen.getByRole('columnheader', { name: 'Dataset' })).toBeTruthy();
    expect(screen.getByRole('columnheader', { name: 'Transitions' }).title).toMatch(
      /^Steps whose action the environment answered/,
    );
    cleanup();
    renderPage('3', [ROW]);
    expect(await screen.findByTestId('trajectory-row')).toBeTruthy();
    expect(screen.queryByTestId('trajectory-dataset')).toBeNull();
    expect(screen.queryByRole('columnheader', { name: 'Dataset' })).toBeNull();
  });
});
