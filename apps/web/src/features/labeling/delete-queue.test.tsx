import { cleanup, fireEvent, screen, waitFor, within } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import { renderWithApi } from '../../app/render-with-api.fixture';
import { fakeApiClient } from '../../app/trpc.fixture';
import { DeleteQueueButton } from './delete-queue';

afterEach(cleanup);

describe('DeleteQueueButton', () => {
  it('asks once more, naming the labels that go with the queue, before anything is sent', async () => {
    const api = fakeApiClient((call) =>
      call.path === 'labels.deleteQueue' ? { deleted: true, labels: 6 } : [],
    );
    renderWithApi(
      <DeleteQueueButton queue={{ id: '4', name: 'airline', labels: 6 }} />,
      api.client,
    );
    fireEvent.click(screen.getByRole('button', { name: 'Delete' }));
    const confirm = screen.getByRole('group', { name: 'Delete queue airline' });
    expect(confirm.textContent).toContain(
      'Delete airline and its 6 labels? Export them first (Agreement page).',
    );
    fireEvent.click(within(confirm).getByRole('button', { name: 'Cancel' }));
    expect(api.calls.some((call) => call.path === 'labels.deleteQueue')).toBe(false);

    fireEvent.click(screen.getByRole('button', { name: 'Delete' }));
    fireEvent.click(screen.getByRole('button', { name: 'Delete airline' }));
    await waitFor(() =>
      expect(api.calls.find((call) => call.path === 'labels.deleteQueue')?.input).toEqual({
        queueId: '4',
      }),
    );
    await waitFor(() => expect(screen.getByRole('button', { name: 'Delete' })).toBeTruthy());
  });
});
