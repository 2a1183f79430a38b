import type { QueueAgreement } from '@terrarium/api';
import { agreementReport } from '@terrarium/labels';
import { describe, expect, it } from 'vitest';
import {
  alphaBars,
  alphaRange,
  criteriaNotCompared,
  formatChartValue,
  formatStat,
  importSummary,
} from './agreement-data';

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

describe('formatChartValue', () => {
  it('rounds a tooltip’s value as the tables beside the chart do', () => {
    expect(formatChartValue(-0.21527777777777768)).toBe('-0.22');
    expect(formatChartValue(1)).toBe('1.00');
    expect(formatChartValue('n/a')).toBe('n/a');
  });

  it('prints a value that rounds to zero as 0.00, never -0.00', () => {
    expect([formatStat(-0.001), formatStat(-0), formatStat(-2.2e-16), formatStat(null)]).toEqual([
      '0.00',
      '0.00',
      '0.00',
      '—',
    ]);
  });
});

describe('importSummary', () => {
  const nothing = {
    added: 0,
    replaced: 0,
    unchanged: 0,
    adjudicated: 0,
    adjudicationsUnchanged: 0,
    unknownItems: [],
    errors: [],
  };

  it('says an export read back in changed nothing', () => {
    expect(importSummary({ ...nothing, unchanged: 9, adjudicationsUnchanged: 1 })).toBe(
      'Read 9 labels: 0 new, 0 replaced, 9 unchanged; 1 settled value: 0 new, 1 unchanged',
    );
  });

  it('counts new and replaced labels, unknown items and the first bad line by its number', () => {
    expect(
      importSummary({
        ...nothing,
        added: 2,
        replaced: 1,
        unknownItems: ['nope'],
        errors: [
          { line: 3, reason: 'a by bo: scores.quality: an integer from 1 to 5' },
          { line: 7, reason: 'not JSON' },
        ],
      }),
    ).toBe(
      'Read 3 labels: 2 new, 1 replaced, 0 unchanged; 1 item is not in this queue; 2 bad lines (first: line 3: a by bo: scores.quality: an integer from 1 to 5)',
    );
  });
});

describe('criteriaNotCompared', () => {
  it('names the queue’s criteria no judge version scored, in the queue’s order', () => {
    // The judge's five dimensions against default-tool's judge (format, facts, consistency…).
    const deltas = ['format', 'consistency', 'realism'].map((criterion) => ({ criterion }));
    expect(
      criteriaNotCompared(['format', 'factuality', 'consistency', 'realism', 'quality'], deltas),
    ).toEqual(['factuality', 'quality']);
    expect(criteriaNotCompared(['format'], deltas)).toEqual([]);
  });
});
