import { DEFAULT_CRITERIA, type LabelCriterion } from '@terrarium/labels';
import { describe, expect, it } from 'vitest';
import { labelKeyAction, nextCriterionIndex } from './label-keys';

const BINARY: LabelCriterion = { id: 'leak', text: 'Leaks data?', min: 0, max: 1, weight: -1 };

describe('labelKeyAction', () => {
  const state = { criteria: [...DEFAULT_CRITERIA, BINARY], criterionIndex: 1 };

  it('scores the selected criterion with the n-th point of its scale', () => {
    expect(labelKeyAction('4', state)).toEqual({
      kind: 'score',
      criterion: 'factuality',
      value: 4,
    });
    expect(labelKeyAction('6', state)).toBeNull();
    const onBinary = { ...state, criterionIndex: 5 };
    expect(labelKeyAction('1', onBinary)).toEqual({ kind: 'score', criterion: 'leak', value: 0 });
    expect(labelKeyAction('2', onBinary)).toEqual({ kind: 'score', criterion: 'leak', value: 1 });
    expect(labelKeyAction('3', onBinary)).toBeNull();
  });

  it('moves between criteria within bounds and between items by arrows or j/k', () => {
    expect(labelKeyAction('ArrowUp', state)).toEqual({ kind: 'criterion', index: 0 });
    expect(labelKeyAction('ArrowUp', { ...state, criterionIndex: 0 })).toEqual({
      kind: 'criterion',
      index: 0,
    });
    expect(labelKeyAction('ArrowDown', { ...state, criterionIndex: 5 })).toEqual({
      kind: 'criterion',
      index: 5,
    });
    expect(labelKeyAction('k', state)).toEqual({ kind: 'back' });
    expect(labelKeyAction('ArrowRight', state)).toEqual({ kind: 'forward' });
    expect(labelKeyAction('Enter', state)).toEqual({ kind: 'submit' });
    expect(labelKeyAction('?', state)).toEqual({ kind: 'help' });
    expect(labelKeyAction('x', state)).toBeNull();
    expect(nextCriterionIndex({ ...state, criterionIndex: 5 })).toBe(5);
    expect(nextCriterionIndex(state)).toBe(2);
  });
});
