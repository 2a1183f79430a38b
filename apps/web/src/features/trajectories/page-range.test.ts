import { describe, expect, it } from 'vitest';
import { pagesCovering } from './page-range';

describe('pagesCovering', () => {
  it('names only the pages that hold the visible rows', () => {
    expect(pagesCovering(0, 30, 200)).toEqual([0]);
    expect(pagesCovering(190, 230, 200)).toEqual([0, 1]);
    expect(pagesCovering(99_950, 99_999, 200)).toEqual([499]);
  });

  it('is empty when nothing is visible', () => {
    expect(pagesCovering(0, -1, 200)).toEqual([]);
  });
});
