import { describe, expect, it } from 'vitest';
import { addUnitUsage, NO_USAGE } from './bench';

describe('addUnitUsage', () => {
  it('sums tokens and dollars; a unit of unknown cost makes the total unknown, keeping what is known', () => {
    const priced = addUnitUsage(
      addUnitUsage(NO_USAGE, { inputTokens: 100, outputTokens: 20, costUsd: 0.25 }),
      // A local simulator: free.
      { inputTokens: 0, outputTokens: 0 },
    );
    expect(priced).toEqual({ inputTokens: 100, outputTokens: 20, costUsd: 0.25 });
    const partly = addUnitUsage(priced, { inputTokens: 7, outputTokens: 3, costUsd: null });
    expect(partly).toEqual({
      inputTokens: 107,
      outputTokens: 23,
      costUsd: null,
      unpriced: { units: 1, knownUsd: 0.25 },
    });
    expect(addUnitUsage(partly, { inputTokens: 1, outputTokens: 1, costUsd: 0.5 })).toEqual({
      inputTokens: 108,
      outputTokens: 24,
      costUsd: null,
      unpriced: { units: 1, knownUsd: 0.75 },
    });
  });
});
