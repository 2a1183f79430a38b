import type { QueueAgreement } from '@terrarium/api';
import { agreementReport } from '@terrarium/labels';
import { describe, expect, it } from 'vitest';
import { alphaBars, alphaRange } from './agreement-data';

describe('alphaBars', () => {
  it('lists criteria in the rubric’s order, not the report’s alphabetical one', () => {
    const ratings = ['a', 'b', 'c'].flatMap((item, i) =>
      ['quality', 'format'].flatMap((criterion) =>
        ['ana', 'bo'].map((labeler) => ({ item, labeler, criterion, value: i + 1 })),
      ),
    );
    const labelers = agreementReport(ratings);
    expect(Object.keys(labelers.byCriterion ?? {})).toEqual(['format', 'quality']);
    const agreement: QueueAgreement = {
      queueId: '1',
      labels: 6,
      criteria: ['quality', 'format'],
      labelers,
      byDomain: {},
      humanVsJudge: {},
      humanVsRules: {},
    };
    expect(alphaBars(agreement).map((entry) => [entry.criterion, entry.value])).toEqual([
      ['quality', 1],
      ['format', 1],
    ]);
  });
});

describe('alphaRange', () => {
  it('leads with the criteria, which the pooled α overstates when criteria sit at different levels', () => {
    // Two labelers, three items: format scored 4 or 5 by both (near agreement), quality 1 by one
    // and 2 by the other on every item (no agreement on which item is better).
    const ratings = ['a', 'b', 'c'].flatMap((item, i) => [
      { item, labeler: 'ana', criterion: 'format', value: 4 + (i % 2) },
      { item, labeler: 'bo', criterion: 'format', value: 4 + (i % 2) },
      { item, labeler: 'ana', criterion: 'quality', value: 1 },
      { item, labeler: 'bo', criterion: 'quality', value: 2 },
    ]);
    const labelers = agreementReport(ratings);
    const agreement: QueueAgreement = {
      queueId: '1',
      labels: 6,
      criteria: ['format', 'quality'],
      labelers,
      byDomain: {},
      humanVsJudge: {},
      humanVsRules: {},
    };
    const range = alphaRange(agreement);
    expect([range?.low.toFixed(3), range?.high]).toEqual(['-0.667', 1]);
    // Pooled, quality's steady 1-vs-2 sits far below format's 4s and 5s and reads as agreement.
    expect(labelers.krippendorffAlpha.ordinal?.toFixed(3)).toBe('0.815');
  });
});
