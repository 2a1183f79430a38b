import { DEFAULT_CRITERIA, type LabelCriterion } from '@terrarium/labels';
import { describe, expect, it } from 'vitest';
import {
  digitValue,
  keyOfValue,
  labelKeyAction,
  nextCriterionIndex,
  unkeyedHint,
} from './label-keys';

const BINARY: LabelCriterion = { id: 'leak', text: 'Leaks data?', min: 0, max: 1, weight: -1 };
const TEN: LabelCriterion = { id: 'overall', text: 'How good?', min: 0, max: 10, weight: 1 };

describe('labelKeyAction', () => {
  const state = { criteria: [...DEFAULT_CRITERIA, BINARY, TEN], criterionIndex: 1 };

  it('scores the selected criterion with the value the digit names, as its buttons read', () => {
    expect(labelKeyAction('4', state)).toEqual({
      kind: 'score',
      criterion: 'factuality',
      value: 4,
    });
    expect(labelKeyAction('1', state)).toEqual({
      kind: 'score',
      criterion: 'factuality',
      value: 1,
    });
    expect([labelKeyAction('0', state), labelKeyAction('6', state)]).toEqual([null, null]);
    const onBinary = { ...state, criterionIndex: 5 };
    expect(labelKeyAction('0', onBinary)).toEqual({ kind: 'score', criterion: 'leak', value: 0 });
    expect(labelKeyAction('1', onBinary)).toEqual({ kind: 'score', criterion: 'leak', value: 1 });
    expect(labelKeyAction('2', onBinary)).toBeNull();
    const onTen = { ...state, criterionIndex: 6 };
    expect(
      ['0', '1', '5', '9'].map((key) => {
        const action = labelKeyAction(key, onTen);
        return action?.kind === 'score' ? action.value : null;
      }),
    ).toEqual([0, 1, 5, 9]);
  });

  it('gives 10 by 0 on a 1–10 scale, and leaves 10 on 0–10 to a click, saying so', () => {
    const oneToTen = { min: 1, max: 10 };
    expect([digitValue(oneToTen, '0'), digitValue(oneToTen, '1')]).toEqual([10, 1]);
    expect(unkeyedHint(oneToTen)).toBeNull();
    expect([keyOfValue(TEN, 10), keyOfValue(TEN, 0), keyOfValue(oneToTen, 10)]).toEqual([
      null,
      '0',
      '0',
    ]);
    expect(unkeyedHint(TEN)).toBe('10: no key, click its button');
    expect(unkeyedHint({ min: -2, max: 2 })).toBe('-2, -1: no key, click their buttons');
    expect(unkeyedHint(BINARY)).toBeNull();
  });

  it('moves between criteria within bounds and between items by arrows or j/k', () => {
    expect(labelKeyAction('ArrowUp', state)).toEqual({ kind: 'criterion', index: 0 });
    expect(labelKeyAction('ArrowUp', { ...state, criterionIndex: 0 })).toEqual({
      kind: 'criterion',
      index: 0,
    });
    expect(labelKeyAction('ArrowDown', { ...state, criterionIndex: 6 })).toEqual({
      kind: 'criterion',
      index: 6,
    });
    expect(labelKeyAction('k', state)).toEqual({ kind: 'back' });
    expect(labelKeyAction('ArrowRight', state)).toEqual({ kind: 'forward' });
    expect(labelKeyAction('Enter', state)).toEqual({ kind: 'submit' });
    expect(labelKeyAction('?', state)).toEqual({ kind: 'help' });
    expect(labelKeyAction('x', state)).toBeNull();
    expect(nextCriterionIndex({ ...state, criterionIndex: 6 })).toBe(6);
    expect(nextCriterionIndex(state)).toBe(2);
  });
});
