import type { QueueAgreement } from '@terrarium/api';
import { agreementReport } from '@terrarium/labels';
import { describe, expect, it } from 'vitest';
import { alphaBars } from './agreement-data';

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
