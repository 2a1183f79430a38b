import { describe, expect, it } from 'vitest';
import { ruleJudgeGaps } from './rule-judge-gap';
import { selectQueueItems } from './select-items';

const IDS = Array.from({ length: 20 }, (_, n) => `item-${n}`);

describe('selectQueueItems', () => {
  it('samples the same items for the same seed, in bench order, and others for another seed', () => {
    const first = selectQueueItems(IDS, { kind: 'random', count: 5, seed: 42 });
    expect(selectQueueItems(IDS, { kind: 'random', count: 5, seed: 42 })).toEqual(first);
    expect(first).toHaveLength(5);
    expect(new Set(first).size).toBe(5);
    expect(first.map((id) => IDS.indexOf(id))).toEqual(
      first.map((id) => IDS.indexOf(id)).toSorted((a, b) => a - b),
    );
    expect(selectQueueItems(IDS, { kind: 'random', count: 5, seed: 43 })).not.toEqual(first);
    expect(selectQueueItems(IDS, { kind: 'random', count: 50, seed: 1 })).toEqual(IDS);
  });

  it('puts the items where rule and judge disagree most first, leaving unscored ones out', () => {
    const gaps = ruleJudgeGaps(
      [
        {
          itemId: 'item-1',
          sim: 'replay',
          source: 'rule',
          metric: 'content',
          value: 1,
          detail: null,
        },
        {
          itemId: 'item-1',
          sim: 'replay',
          source: 'judge',
          metric: 'format',
          value: 0.25,
          detail: null,
        },
        {
          itemId: 'item-1',
          sim: 'replay',
          source: 'judge',
          metric: 'facts',
          value: 0.25,
          detail: null,
        },
        {
          itemId: 'item-2',
          sim: 'replay',
          source: 'rule',
          metric: 'exact',
          value: 0.5,
          detail: null,
        },
        {
          itemId: 'item-2',
          sim: 'replay',
          source: 'judge',
          metric: 'format',
          value: 0.5,
          detail: null,
        },
        {
          itemId: 'item-3',
          sim: 'replay',
          source: 'rule',
          metric: 'content',
          value: 0,
          detail: null,
        },
        {
          itemId: 'item-3',
          sim: 'replay',
          source: 'judge',
          metric: 'format',
          value: 0.5,
          detail: null,
        },
        {
          itemId: 'item-4',
          sim: 'replay',
          source: 'rule',
          metric: 'content',
          value: 0,
          detail: null,
        },
        {
          itemId: 'item-1',
          sim: 'other',
          source: 'judge',
          metric: 'format',
          value: 1,
          detail: null,
        },
      ],
      'replay',
    );
    expect([...gaps]).toEqual([
      ['item-1', 0.75],
      ['item-2', 0],
      ['item-3', 0.5],
    ]);
    expect(selectQueueItems(IDS, { kind: 'disagreement', count: 2 }, gaps)).toEqual([
      'item-1',
      'item-3',
    ]);
  });
});
