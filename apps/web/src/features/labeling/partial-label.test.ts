import { describe, expect, it } from 'vitest';
import { partialLabelCheck } from './partial-label';

const criteria = [{ id: 'format' }, { id: 'facts' }, { id: 'consistency' }];

describe('partialLabelCheck', () => {
  it('sends a complete label at once', () => {
    expect(
      partialLabelCheck(criteria, { format: 4, facts: 3, consistency: 5 }, 'i1', null),
    ).toEqual({ send: true });
  });

  it('asks once about unscored criteria, naming them, then sends the same draft', () => {
    const scores = { format: 4, facts: null };
    const asked = partialLabelCheck(criteria, scores, 'i1', null);
    expect(asked).toEqual({
      send: false,
      askKey: 'i1\u0000facts\u0000consistency',
      message: '2 criteria not scored (facts, consistency): Enter again submits without them.',
    });
    const key = asked.send ? null : asked.askKey;
    expect(partialLabelCheck(criteria, scores, 'i1', key)).toEqual({ send: true });
    // Another item, or another set left out, asks again.
    expect(partialLabelCheck(criteria, scores, 'i2', key).send).toBe(false);
    expect(partialLabelCheck(criteria, { ...scores, facts: 2 }, 'i1', key)).toMatchObject({
      send: false,
      message: '1 criterion not scored (consistency): Enter again submits without it.',
    });
  });
});
