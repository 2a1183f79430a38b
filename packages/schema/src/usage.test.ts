import { describe, expect, it } from 'vitest';
import { addRunUsage, addUnitUsage, NO_USAGE } from './bench';
import { costText, usageText } from './usage-text';

describe('addRunUsage', () => {
  it('adds two totals, counting the calls of unknown cost in both and keeping what is known', () => {
    const simulators = { inputTokens: 10, outputTokens: 2, costUsd: 0.5 };
    const judge = {
      inputTokens: 30,
      outputTokens: 4,
      costUsd: null,
      unpriced: { units: 3, knownUsd: 0.25 },
    };
    expect(addRunUsage(simulators, NO_USAGE)).toEqual(simulators);
    expect(addRunUsage(simulators, judge)).toEqual({
      inputTokens: 40,
      outputTokens: 6,
      costUsd: null,
      unpriced: { units: 3, knownUsd: 0.75 },
    });
    expect(addRunUsage(judge, judge).unpriced).toEqual({ units: 6, knownUsd: 0.5 });
    // Unknown without a count of what is unknown: the sum claims nothing known either.
    expect(addRunUsage(simulators, { inputTokens: 1, outputTokens: 1, costUsd: null })).toEqual({
      inputTokens: 11,
      outputTokens: 3,
      costUsd: null,
    });
  });
});

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

  it('says when a cost is not known, instead of $0.00', () => {
    expect(costText({ inputTokens: 138_810, outputTokens: 49_585, costUsd: null })).toBe(
      'cost not priced',
    );
    expect(costText({ inputTokens: 0, outputTokens: 0, costUsd: null })).toBe(
      'cost unknown (no token usage reported)',
    );
    // A priced judge some of whose replies reported no tokens: what is known, and that it is not all.
    expect(
      costText({
        inputTokens: 236_101,
        outputTokens: 4520,
        costUsd: null,
        unpriced: { units: 21, knownUsd: 0.6354525 },
      }),
    ).toBe('at least $0.6355 (the cost of 21 units is not known)');
    expect(
      costText(
        { inputTokens: 9, outputTokens: 9, costUsd: null, unpriced: { units: 1, knownUsd: 2 } },
        'judging',
      ),
    ).toBe('at least $2.00 (the cost of 1 judging is not known)');
    // Nothing priced at all: no price is set.
    expect(
      costText({
        inputTokens: 270_919,
        outputTokens: 5360,
        costUsd: null,
        unpriced: { units: 134, knownUsd: 0 },
      }),
    ).toBe('cost not priced');
    // A judge that reports no usage: not "0 tokens", which would read as measured.
    expect(
      usageText({
        inputTokens: 0,
        outputTokens: 0,
        costUsd: null,
        unpriced: { units: 3, knownUsd: 0 },
      }),
    ).toBe('no token usage reported');
    expect(usageText({ inputTokens: 300, outputTokens: 60, costUsd: 0.00042 }, 'judging')).toBe(
      '300 in / 60 out tokens · $0.0004',
    );
    // Local simulators are free.
    expect(costText({ inputTokens: 0, outputTokens: 0, costUsd: 0 })).toBe('$0.00');
    expect(costText({ inputTokens: 1_000_000, outputTokens: 0, costUsd: 0.5 })).toBe('$0.50');
  });
});
