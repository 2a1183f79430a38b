import { cleanup, fireEvent, screen, waitFor } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import { renderWithApi } from '../../app/render-with-api.fixture';
import { fakeApiClient, type ApiCall } from '../../app/trpc.fixture';
import { DisagreementList } from './disagreement-list';

afterEach(cleanup);

const ROW = {
  ordinal: 0,
  itemId: 'item-a',
  task: 'tau2-bench/airline',
  criterion: 'format',
  spread: 3,
  values: [
    { labeler: 'ana', value: 1, comment: 'ids look wrong', flagged: true },
    { labeler: 'bo', value: 4, comment: '', flagged: false },
  ],
  adjudication: null,
};

const SETTLED = {
  queueId: '1',
  ordinal: 0,
  itemId: 'item-a',
  criterion: 'format',
  value: 2,
  comment: '',
  researcherId: '1',
  researcherName: 'res',
  createdAt: '2026-12-04T21:05:09.000Z',
};

/** Queue 1 over run 7's retrieval predictions, as `labels.queue` answers (the fields read here). */
const QUEUE = { id: '1', name: 'q', runId: '7', sim: 'retrieval' };

function renderList(row: unknown = ROW) {
  const api = fakeApiClient(({ path, input }: ApiCall) => {
    if (path === 'labels.queue') return QUEUE;
    if (path === 'labels.disagreements') return [row];
    if (path === 'labels.adjudicate') {
      // The server's refusal of a value off the criterion's scale.
      if (JSON.stringify(input).includes('"value":9'))
        throw new Error('value: format takes an integer from 1 to 5');
      return SETTLED;
    }
    throw new Error(`unexpected call ${path}`);
  });
  renderWithApi(<DisagreementList queueId="1" />, api.client);
  return api.calls;
}

async function settle(text: string): Promise<string> {
  const input = await screen.findByLabelText('Adjudicate 0/format');
  fireEvent.change(input, { target: { value: text } });
  fireEvent.click(screen.getByRole('button', { name: 'Settle' }));
  return (await screen.findByRole('alert')).textContent ?? '';
}

describe('DisagreementList', () => {
  it('says beside the row why a value was not settled: off the scale, or not a number', async () => {
    const calls = renderList();
    expect(await settle('9')).toBe(' value: format takes an integer from 1 to 5');
    expect(calls.filter((call) => call.path === 'labels.adjudicate')).toHaveLength(1);
    cleanup();
    const none = renderList();
    expect(await settle('three')).toBe(' type a whole number on the scale');
    expect(none.filter((call) => call.path === 'labels.adjudicate')).toHaveLength(0);
  });

  it("links the item to its bench run and shows each labeler's flag and comment", async () => {
    renderList();
    const link = await screen.findByRole('link', { name: 'item 1' });
    expect(link.getAttribute('href')).toBe(
      '/bench-runs/7?sim=retrieval&task=tau2-bench%2Fairline&item=item-a',
    );
    expect(screen.getByTestId('disagreement-0/format').textContent).toBe(
      'item 1formatana 1 ⚑ “ids look wrong” · bo 4 Settle',
    );
  });

  it('settles once on a double click, and a settled value says when and can be changed', async () => {
    const calls = renderList();
    const input = await screen.findByLabelText('Adjudicate 0/format');
    fireEvent.change(input, { target: { value: '2' } });
    const button = screen.getByRole('button', { name: 'Settle' });
    fireEvent.click(button);
    fireEvent.click(button);
    await waitFor(() =>
      expect(calls.filter((call) => call.path === 'labels.adjudicate')).toHaveLength(1),
    );
    cleanup();
    renderList({ ...ROW, adjudication: SETTLED });
    const row = await screen.findByTestId('disagreement-0/format');
    await waitFor(() =>
      expect(row.textContent).toContain('settled 2 by res on 2026-12-04 21:05 UTC'),
    );
    fireEvent.click(screen.getByRole('button', { name: 'Change' }));
    expect(screen.getByLabelText('Adjudicate 0/format')).toBeTruthy();
  });
});
