import { cleanup, screen } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import { renderWithApi } from '../../app/render-with-api.fixture';
import { createApiClient } from '../../app/trpc';
import { StartRunForm } from './start-run-form';

afterEach(cleanup);

function splitOptions() {
  const select = screen.getByRole('combobox', { name: 'Split' });
  if (!(select instanceof HTMLSelectElement)) throw new Error('Split is not a select');
  return {
    value: select.value,
    options: [...select.options].map((option) => [option.text, option.disabled]),
  };
}

describe('StartRunForm', () => {
  it('offers only the splits the bench has items in, with their counts', () => {
    // walk 45: the demo bench has no dev items, yet dev was offered and refused at start.
    renderWithApi(
      <StartRunForm bench="demo" version={1} splits={{ test: 1046, dev: 0 }} />,
      createApiClient(),
    );
    expect(splitOptions()).toEqual({
      value: 'test',
      options: [
        ['test (1,046 items)', false],
        ['dev (0 items)', true],
      ],
    });
  });

  it('starts on dev when only dev has items', () => {
    renderWithApi(
      <StartRunForm bench="held" version={2} splits={{ test: 0, dev: 12 }} />,
      createApiClient(),
    );
    expect(splitOptions()).toEqual({
      value: 'dev',
      options: [
        ['test (0 items)', true],
        ['dev (12 items)', false],
      ],
    });
  });
});
