import { cleanup, render, screen } from '@testing-library/react';
import { agreementReport } from '@terrarium/labels';
import { afterEach, describe, expect, it } from 'vitest';
import { DomainAgreementTable } from './domain-agreement-table';

afterEach(cleanup);

describe('DomainAgreementTable', () => {
  it('says why there is nothing yet instead of an empty table', () => {
    render(<DomainAgreementTable byDomain={{}} />);
    expect(screen.getByTestId('by-domain-empty').textContent).toBe(
      'No item is labeled yet. Each domain gets a row once its items have labels; its α needs items labeled by at least two labelers.',
    );
    expect(screen.queryByRole('table')).toBeNull();
  });

  it('shows a row per labeled domain, and why a domain with one labeler has no α', () => {
    const tool = agreementReport([
      { item: 'a', labeler: 'ana', criterion: 'format', value: 1 },
      { item: 'a', labeler: 'bo', criterion: 'format', value: 1 },
      { item: 'b', labeler: 'ana', criterion: 'format', value: 5 },
      { item: 'b', labeler: 'bo', criterion: 'format', value: 5 },
    ]);
    const swe = agreementReport([{ item: 'c', labeler: 'ana', criterion: 'format', value: 3 }]);
    render(<DomainAgreementTable byDomain={{ tool, swe }} />);
    const rows = screen
      .getAllByRole('row')
      .slice(1)
      .map((row) => [...row.querySelectorAll('td')].map((cell) => cell.textContent));
    expect(rows).toEqual([
      ['tool', '2', '1.00', '[—, —]'],
      ['swe', '1', '—', '[—, —]'],
    ]);
    expect(screen.getByTestId('by-domain-no-alpha').textContent).toBe(
      '— : no α for that domain yet: no item of it is labeled by two labelers, or all its labels give the same point (α is undefined without variation).',
    );
    expect(screen.queryByTestId('by-domain-empty')).toBeNull();
  });
});
