import * as fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { lexJson } from './content/json-lexer';
import { perturb, shiftCharacters } from './perturbations';
import { averageRanks, spearman } from './stats';
import { shapeOf } from './text/json-value';

const reservation =
  '{"reservation_id": "NQNU5R", "user_id": "aarav_ahmed_6699", "created_at": "2024-05-03T15:12:00", "total": 710}';
const input = (real: string, historyText = '', otherStep: string | null = null) => ({
  real,
  historyText,
  otherStep,
});

describe('perturbations', () => {
  it('alters a timestamp the history did not show, keeping its format', () => {
    expect(perturb('alter-timestamp', input(reservation))).toBe(
      reservation.replace('15:12:00', '15:12:03'),
    );
    // A timestamp the history already showed is a fact, not metadata: left alone.
    expect(
      perturb('alter-timestamp', input(reservation, 'created 2024-05-03T15:12:00')),
    ).toBeNull();
    expect(perturb('alter-timestamp', input('no time here'))).toBeNull();
  });

  it('changes a runtime id to another of the same shape', () => {
    expect(perturb('change-runtime-id', input(reservation, 'aarav_ahmed_6699'))).toBe(
      reservation.replace('NQNU5R', 'OROV6S'),
    );
    expect(perturb('change-runtime-id', input('d41d8cd98f00b204e9800998ecf8427e  -'))).toBe(
      'e52e9de09a11c315f0911009fda9538f  -',
    );
  });

  it('changes a value the history showed, not a key', () => {
    expect(
      perturb(
        'change-deterministic-value',
        input(reservation, 'get_user_details aarav_ahmed_6699 user_id'),
      ),
    ).toBe(reservation.replace('aarav_ahmed_6699', 'bbsbw_binfe_7700'));
    expect(
      perturb('change-deterministic-value', input(reservation, 'nothing in common')),
    ).toBeNull();
  });

  it('drops the last key, keeping the Python-style layout', () => {
    expect(perturb('drop-json-key', input(reservation))).toBe(
      '{"reservation_id": "NQNU5R", "user_id": "aarav_ahmed_6699", "created_at": "2024-05-03T15:12:00"}',
    );
    expect(perturb('drop-json-key', input('[{"a":1,"b":2}]'))).toBe('[{"a":1}]');
    expect(perturb('drop-json-key', input('plain text'))).toBeNull();
  });

  it('shuffles lines deterministically, never returning the original order', () => {
    const shuffled = perturb('shuffle-lines', input('a\nb\nc\nd'));
    expect(shuffled).not.toBe('a\nb\nc\nd');
    expect(shuffled?.split('\n').toSorted()).toEqual(['a', 'b', 'c', 'd']);
    expect(perturb('shuffle-lines', input('a\nb\nc\nd'))).toBe(shuffled);
    expect(perturb('shuffle-lines', input('one line'))).toBeNull();
  });

  it('swaps in another step, or empties the output', () => {
    expect(perturb('other-step', input('x', '', 'y'))).toBe('y');
    expect(perturb('other-step', input('x', '', 'x'))).toBeNull();
    expect(perturb('empty', input('x'))).toBe('');
    expect(perturb('empty', input(' \n'))).toBeNull();
  });

  it('shifts characters within their class', () => {
    expect(shiftCharacters('Az9_z')).toBe('Ba0_a');
  });
});

describe('JSON typed paths', () => {
  it('the lexer finds the same typed paths as a walk of the parsed value', () => {
    fc.assert(
      fc.property(fc.json({ maxDepth: 4 }), (text) => {
        const parsed: unknown = JSON.parse(text);
        if (typeof parsed !== 'object' || parsed === null) return;
        expect(lexJson(text).typedPaths).toEqual(shapeOf(parsed).typedPaths);
      }),
    );
  });
});

describe('Spearman correlation', () => {
  it('averages tied ranks', () => {
    expect(averageRanks([10, 20, 20, 5])).toEqual([2, 3.5, 3.5, 1]);
  });

  it('is −1 for a perfectly reversed order and exact on a hand case', () => {
    expect(spearman([0, 1, 2, 3], [0.9, 0.7, 0.2, 0])).toBe(-1);
    // d = (0, 1, −1) on ranks of 3: 1 − 6·2 / (3·8) = 0.5
    expect(spearman([1, 2, 3], [1, 3, 2])).toBeCloseTo(0.5, 12);
  });
});
