import { describe, expect, it } from 'vitest';
import { CycleWatch, type Cycle } from './cycle';

/** Where (1-based, in tokens) the watch first says the output is looping, and the cycle it saw. */
function firstCycle(tokens: readonly number[]): (Cycle & { at: number }) | null {
  const watch = new CycleWatch();
  for (const [index, token] of tokens.entries()) {
    const cycle = watch.push(token);
    if (cycle !== null) return { at: index + 1, ...cycle };
  }
  return null;
}

/** `copies` back-to-back copies of a span of `period` distinct tokens. */
function repeated(period: number, copies: number, first = 100): number[] {
  return Array.from({ length: period * copies }, (_, i) => first + (i % period));
}

describe('CycleWatch', () => {
  it('says a span of two written back to back loops once the copies cover 48 tokens', () => {
    expect(firstCycle(repeated(2, 40))).toEqual({ at: 48, period: 2, span: 48 });
    expect(firstCycle(repeated(2, 40).slice(0, 47))).toBeNull();
  });

  it('one token again and again (a line of blanks) is a span of one', () => {
    expect(firstCycle([7, ...Array<number>(60).fill(3)])).toEqual({ at: 49, period: 1, span: 48 });
  });

  it('needs three copies of a long span: a record repeated once is no loop', () => {
    // 60 tokens twice cover 120 tokens, more than 48, but real lists do repeat a record.
    expect(firstCycle(repeated(60, 2))).toBeNull();
    expect(firstCycle(repeated(60, 4))).toEqual({ at: 180, period: 60, span: 180 });
  });

  it('starts counting where the copies start, after any other text', () => {
    const prefix = [1, 2, 3, 4, 5, 6, 7, 8, 9];
    expect(firstCycle([...prefix, ...repeated(8, 10)])).toEqual({
      at: prefix.length + 48,
      period: 8,
      span: 48,
    });
  });

  it('a repeat broken before it covers 48 tokens starts again from nothing', () => {
    const broken = [...repeated(4, 11), 999, ...repeated(4, 11), 998, ...repeated(4, 11)];
    expect(firstCycle(broken)).toBeNull();
  });

  it('spans longer than 128 tokens are not looked for', () => {
    expect(firstCycle(repeated(129, 4))).toBeNull();
    expect(firstCycle(repeated(128, 4))).toEqual({ at: 384, period: 128, span: 384 });
  });
});
