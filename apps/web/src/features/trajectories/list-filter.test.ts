import { describe, expect, it } from 'vitest';
import { EMPTY_LIST_QUERY } from '../../app/url-state';
import { presentOptions, toTrajectoryFilter } from './list-filter';

describe('toTrajectoryFilter', () => {
  it('searches the first 500 characters of a longer search a link carries', () => {
    const long = `${'x'.repeat(499)} ${'y'.repeat(100)}`;
    expect(toTrajectoryFilter(null, { ...EMPTY_LIST_QUERY, q: long })).toEqual({
      search: 'x'.repeat(499),
    });
    // 499 characters and an emoji (two UTF-16 units) cut after its first half: the emoji goes.
    expect(toTrajectoryFilter(null, { ...EMPTY_LIST_QUERY, q: `${'x'.repeat(499)}😀` })).toEqual({
      search: 'x'.repeat(499),
    });
  });

  it('sends only the filters that are set, with the search trimmed', () => {
    expect(toTrajectoryFilter(null, EMPTY_LIST_QUERY)).toEqual({});
    expect(toTrajectoryFilter(null, { ...EMPTY_LIST_QUERY, q: '   ' })).toEqual({});
    expect(
      toTrajectoryFilter('7', {
        q: '  cancel reservation ',
        domain: 'tool',
        format: 'tau-bench-v1',
        outcome: 'unknown',
        minSteps: 0,
        maxSteps: 12,
      }),
    ).toEqual({
      datasetId: '7',
      search: 'cancel reservation',
      domain: 'tool',
      sourceFormat: 'tau-bench-v1',
      outcome: 'unknown',
      minSteps: 0,
      maxSteps: 12,
    });
  });
});

describe('presentOptions', () => {
  const all = ['tool', 'terminal', 'swe', 'database'] as const;
  it('offers only the values the datasets in view hold, in canonical order', () => {
    expect(presentOptions(all, [['swe', 'terminal'], ['tool']], null)).toEqual([
      'tool',
      'terminal',
      'swe',
    ]);
  });

  it('keeps a selected value a link named, and offers everything while datasets load', () => {
    expect(presentOptions(all, [['tool']], 'database')).toEqual(['tool', 'database']);
    expect(presentOptions(all, null, null)).toEqual([...all]);
  });
});
