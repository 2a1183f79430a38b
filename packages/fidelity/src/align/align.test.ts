import * as fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { boundedLcs, boundedLevenshtein, EXACT_CELLS, increasingRun } from './anchored';
import { lcsLength, levenshtein } from './bit-parallel';

function naiveLevenshtein(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++)
      current[j] = Math.min(
        (previous[j] ?? 0) + 1,
        (current[j - 1] ?? 0) + 1,
        (previous[j - 1] ?? 0) + (a[i - 1] === b[j - 1] ? 0 : 1),
      );
    previous = current;
  }
  return previous[b.length] ?? 0;
}

function naiveLcs(a: readonly number[], b: readonly number[]): number {
  let previous = Array.from({ length: b.length + 1 }, () => 0);
  for (let i = 1; i <= a.length; i++) {
    const current = [0];
    for (let j = 1; j <= b.length; j++)
      current[j] =
        a[i - 1] === b[j - 1]
          ? (previous[j - 1] ?? 0) + 1
          : Math.max(previous[j] ?? 0, current[j - 1] ?? 0);
    previous = current;
  }
  return previous[b.length] ?? 0;
}

// Small alphabets make many matches, the hard case for bit-parallel carries; lengths cross 32 and 64.
const smallText = fc.string({ unit: fc.constantFrom('a', 'b', 'c', 'é', '\n'), maxLength: 140 });
const symbols = fc.array(fc.integer({ min: 0, max: 3 }), { maxLength: 140 });

describe('bit-parallel dynamic programming', () => {
  it('gives the textbook Levenshtein distances', () => {
    expect(levenshtein('kitten', 'sitting')).toBe(3);
    expect(levenshtein('', 'abc')).toBe(3);
    expect(levenshtein('flaw', 'lawn')).toBe(2);
    expect(levenshtein('a'.repeat(40) + 'x', 'a'.repeat(40) + 'y')).toBe(1);
  });

  it('Levenshtein equals the O(n·m) recurrence (Myers, one word and several)', () => {
    fc.assert(
      fc.property(smallText, smallText, (a, b) => {
        expect(levenshtein(a, b)).toBe(naiveLevenshtein(a, b));
      }),
      {
        numRuns: 400,
      },
    );
  });

  it('LCS equals the O(n·m) recurrence', () => {
    expect(lcsLength([1, 2, 3, 4], [1, 3, 2, 4])).toBe(3);
    fc.assert(
      fc.property(symbols, symbols, (a, b) => {
        expect(lcsLength(a, b)).toBe(naiveLcs(a, b));
      }),
      {
        numRuns: 400,
      },
    );
  });

  it('marks one longest increasing run, skipping -1', () => {
    // 1 2 5 and 1 2 4 are both longest; the later tail wins.
    expect(increasingRun([3, 1, 2, -1, 5, 4])).toEqual([false, true, true, false, false, true]);
  });
});

const words = ['alpha', 'beta', 'gamma', '"key":', '{', '}', '12', '3.5', 'delta', '\n'];
const ids = (text: string) => Int32Array.from(text.split(' '), (word) => words.indexOf(word));

describe('bounded alignment of long pairs', () => {
  const longText = fc
    .array(fc.constantFrom(...words), { minLength: 900, maxLength: 1200 })
    .map((parts) => parts.join(' '));

  it('is exact on near-copies far above the exact-cell limit', () => {
    const base = Array.from(
      { length: 3000 },
      (_, i) => `line ${i} value ${(i * 7919) % 1000}`,
    ).join('\n');
    expect(base.length ** 2).toBeGreaterThan(EXACT_CELLS);
    const edited = base
      .replace('line 1500 value', 'line 1500 valve')
      .replace('line 20 ', 'line 20x ');
    expect(boundedLevenshtein(base, edited)).toBe(2);
  });

  it('never reports a distance below the true one, nor an LCS above it', () => {
    fc.assert(
      fc.property(longText, longText, (a, b) => {
        const exactDistance = levenshtein(a, b);
        const bounded = boundedLevenshtein(a, b);
        expect(bounded).toBeGreaterThanOrEqual(exactDistance);
        expect(bounded).toBeLessThanOrEqual(Math.max(a.length, b.length));
        expect(boundedLcs(ids(a), ids(b))).toBe(lcsLength(ids(a), ids(b)));
      }),
      { numRuns: 5 },
    );
  });
});
