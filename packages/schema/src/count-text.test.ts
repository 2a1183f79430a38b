import { describe, expect, it } from 'vitest';
import { plural } from './count-text';

describe('plural', () => {
  it('matches the noun to the count and separates thousands', () => {
    // Walk 44: the CLI printed "Imported 1 trajectories, 10000 transitions".
    expect(plural(1, 'trajectory', 'trajectories')).toBe('1 trajectory');
    expect(plural(0, 'trajectory', 'trajectories')).toBe('0 trajectories');
    expect(plural(10_000, 'transition')).toBe('10,000 transitions');
  });
});
