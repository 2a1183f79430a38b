import { describe, expect, it } from 'vitest';
import { seedSummary } from './seed-summary';

describe('seedSummary', () => {
  it('counts the seed tasks and says why the rest were refused', () => {
    expect(seedSummary('builtin', { tasks: 2, rejected: 0, commonestReason: null })).toBe(
      'builtin: 2 seed tasks',
    );
    expect(
      seedSummary('intercode-bash', {
        tasks: 1,
        rejected: 1_203,
        commonestReason: 'the reference solution fails its own verifier',
      }),
    ).toBe(
      'intercode-bash: 1 seed task (1,203 trajectories refused; most often: the reference solution fails its own verifier)',
    );
  });

  it('tells the user to pick another dataset when it gives none', () => {
    expect(
      seedSummary('airline', {
        tasks: 0,
        rejected: 200,
        commonestReason: 'a tool trajectory has no terminal world',
      }),
    ).toBe(
      'airline: 0 seed tasks (200 trajectories refused; most often: a tool trajectory has no terminal world). Pick another dataset.',
    );
  });
});
