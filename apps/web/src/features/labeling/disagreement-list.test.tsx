import { cleanup, fireEvent, screen } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import { renderWithApi } from '../../app/render-with-api.fixture';
import { fakeApiClient, type ApiCall } from '../../app/trpc.fixture';
import { DisagreementList } from './disagreement-list';

afterEach(cleanup);

const ROW = {
  ordinal: 0,
  itemId: 'item-a',
  criterion: 'format',
  spread: 3,
  values: [
    { labeler: 'ana', value: 1 },
    { labeler: 'bo', value: 4 },
  ],
  adjudication: null,
};

function renderList() {
  const api = fakeApiClient(({ path, input }: ApiCall) => {
    if (path === 'labels.disagreements') return [ROW];
    if (path === 'labels.adjudicate') {
      // The server's refusal of a value off the criterion's scale.
      if (JSON.stringify(input).includes('"value":9'))
        throw new Error('value: format takes an integer from 1 to 5');
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
});
