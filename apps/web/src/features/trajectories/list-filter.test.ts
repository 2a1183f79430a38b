import { describe, expect, it } from 'vitest';
import { EMPTY_LIST_QUERY } from '../../app/url-state';
import { toTrajectoryFilter } from './list-filter';

describe('toTrajectoryFilter', () => {
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
