import { cleanup, fireEvent, screen, waitFor, within } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import { renderWithApi } from '../../app/render-with-api.fixture';
import { fakeApiClient } from '../../app/trpc.fixture';
import { DeleteDatasetButton } from './delete-dataset';

afterEach(cleanup);

describe('DeleteDatasetButton', () => {
  it('asks once more, naming the trajectories that go, before anything is sent', async () => {
    const api = fakeApiClient((call) =>
      call.path === 'datasets.delete' ? { deleted: 'retail', trajectories: 80 } : [],
    );
    renderWithApi(
      <DeleteDatasetButton dataset={{ id: '7', name: 'retail', trajectories: 80 }} />,
      api.client,
    );
    fireEvent.click(screen.getByRole('button', { name: 'Delete' }));
    const confirm = screen.getByRole('group', { name: 'Delete dataset retail' });
    expect(confirm.textContent).toContain(
      'Delete retail and its 80 trajectories? Benches built from it keep their items.',
    );
    fireEvent.click(within(confirm).getByRole('button', { name: 'Cancel' }));
    expect(api.calls.some((call) => call.path === 'datasets.delete')).toBe(false);

    fireEvent.click(screen.getByRole('button', { name: 'Delete' }));
    fireEvent.click(screen.getByRole('button', { name: 'Delete retail' }));
    await waitFor(() =>
      expect(api.calls.find((call) => call.path === 'datasets.delete')?.input).toEqual({
        datasetId: '7',
      }),
    );
    await waitFor(() => expect(screen.getByRole('button', { name: 'Delete' })).toBeTruthy());
  });

  it('names the curriculum runs seeded from it, which cannot export once it is gone', async () => {
    // walk 43: a run's export failed after the delete, and nothing had said it would.
    const api = fakeApiClient((call) =>
      call.path === 'curriculum.list'
        ? [
            { id: '2', dataset: 'retail' },
            { id: '3', dataset: 'airline' },
          ]
        : [],
    );
    renderWithApi(
      <DeleteDatasetButton dataset={{ id: '7', name: 'retail', trajectories: 80 }} />,
      api.client,
    );
    fireEvent.click(screen.getByRole('button', { name: 'Delete' }));
    const confirm = screen.getByRole('group', { name: 'Delete dataset retail' });
    await waitFor(() =>
      expect(confirm.textContent).toContain(
        'Benches built from it keep their items. Curriculum run #2 was seeded from it: it cannot export its tasks until the dataset is imported again under this name.',
      ),
    );
  });
});
