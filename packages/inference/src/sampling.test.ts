import { describe, expect, it } from 'vitest';
import { argmax, createRng, sampleToken } from './sampling';

const all = (): boolean => true;

describe('sampling', () => {
  it('picks the likeliest allowed token', () => {
    const logits = Float32Array.of(0.1, 3, 2, 3);
    expect(argmax(logits, all)).toBe(1);
    expect(argmax(logits, (token) => token !== 1)).toBe(3);
  });

  it('repeats a seeded draw and keeps to the top k', () => {
    const logits = Float32Array.of(1, 1, 1, 1, 1, 1, 1, 1);
    const draw = (seed: number, topK: number): number[] => {
      const random = createRng(seed);
      return Array.from({ length: 12 }, () => sampleToken(logits, 1, topK, random, all));
    };
    expect(draw(7, 0)).toEqual(draw(7, 0));
    expect(draw(7, 0)).not.toEqual(draw(8, 0));
    expect(new Set(draw(7, 2))).toEqual(new Set([0, 1]));
  });
});
