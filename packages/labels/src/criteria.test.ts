import { describe, expect, it } from 'vitest';
import {
  criteriaForLabelers,
  criteriaLeftUnscored,
  rejudgedCriteria,
  LabelCriterion,
  labelScaleProblem,
  normalizeScore,
  type RuleSetCriterionLike,
} from './criteria';

const RUBRIC: RuleSetCriterionLike[] = [
  { id: 'overall', text: 'How good is it?', category: 'essential', scale: { min: 0, max: 10 } },
  {
    id: 'correct',
    text: 'Is the answer right?',
    scale: { min: 1, max: 3, labels: { '1': 'wrong', '2': 'partly', '3': 'right' } },
  },
  { id: 'leak', text: 'Leaks data?', category: 'pitfall', scale: { min: 0, max: 1 } },
  { id: 'json', text: 'Valid JSON?', scale: { min: 0, max: 1 }, rule: 'json-valid' },
];

describe('criteriaForLabelers', () => {
  it('keeps each criterion’s own scale and what its points mean, leaving rule-scored ones out', () => {
    expect(criteriaForLabelers(RUBRIC)).toEqual([
      { id: 'overall', text: 'How good is it?', min: 0, max: 10, weight: 1 },
      {
        id: 'correct',
        text: 'Is the answer right?',
        min: 1,
        max: 3,
        weight: 0.7,
        labels: { '1': 'wrong', '2': 'partly', '3': 'right' },
      },
      { id: 'leak', text: 'Leaks data?', min: 0, max: 1, weight: -0.9 },
    ]);
  });

  it('normalises a human 10 on a 0–10 criterion to 1, as the judge’s 10 is', () => {
    const [overall] = criteriaForLabelers(RUBRIC);
    if (overall === undefined) throw new Error('no criterion');
    expect([normalizeScore(overall, 10), normalizeScore(overall, 9)]).toEqual([1, 0.9]);
  });

  it('keeps a scale too wide to label as it is, for the queue to refuse by name', () => {
    const [wide] = criteriaForLabelers([
      { id: 'percent', text: 'How much is right?', scale: { min: 0, max: 100 } },
    ]);
    expect([wide?.min, wide?.max]).toEqual([0, 100]);
    expect(wide === undefined ? null : labelScaleProblem(wide)).toBe(
      'criterion percent: its scale 0–100 has 101 points; labelers score at most 11 (e.g. 0–10), so give it a shorter scale',
    );
  });
});

describe('LabelCriterion', () => {
  it('takes scales of up to 11 points with their labels, and refuses wider ones by name', () => {
    const tenPoint = { id: 'overall', text: 'How good?', min: 0, max: 10, weight: 1 };
    expect(LabelCriterion.parse({ ...tenPoint, labels: { '0': 'useless' } })).toEqual({
      ...tenPoint,
      labels: { '0': 'useless' },
    });
    const wide = LabelCriterion.safeParse({ ...tenPoint, max: 11 });
    expect(wide.error?.issues.map((issue) => [issue.path, issue.message])).toEqual([
      [
        ['max'],
        'criterion overall: its scale 0–11 has 12 points; labelers score at most 11 (e.g. 0–10), so give it a shorter scale',
      ],
    ]);
    expect(LabelCriterion.safeParse({ ...tenPoint, max: 0 }).error?.issues[0]?.message).toBe(
      'criterion overall: max (0) must be above min (0)',
    );
  });
});

describe('re-judging a queue with a rule set', () => {
  const queue = ['format', 'facts', 'realism'].map((id) => ({ id }));
  const ruleSet = [
    { id: 'facts' },
    { id: 'format', rule: 'content' },
    { id: 'tone' },
    { id: 'realism' },
  ];

  it('judges the queue’s criteria the rule set has for a judge, and names the others', () => {
    expect(rejudgedCriteria(queue, ruleSet)).toEqual([{ id: 'facts' }, { id: 'realism' }]);
    // format has a local rule, so no judge scores it; tone is not the queue's.
    expect(criteriaLeftUnscored(queue, ruleSet)).toEqual(['format']);
    expect(criteriaLeftUnscored(queue, [])).toEqual(['format', 'facts', 'realism']);
  });
});
