import { describe, expect, it } from 'vitest';
import { judgeRepeatsNote, judgeSidesText, sidePreferenceP } from './judge-sides';

describe('a judge’s answers by side', () => {
  it('gives the exact two-sided sign test', () => {
    // 10 of 10 one way: 2 × 2^-10.
    expect(sidePreferenceP({ a: 10, b: 0 })).toBeCloseTo(2 / 1024, 12);
    // 7 of 10: 2 × (120 + 45 + 10 + 1) / 1024.
    expect(sidePreferenceP({ a: 3, b: 7 })).toBeCloseTo(352 / 1024, 12);
    expect(sidePreferenceP({ a: 5, b: 5 })).toBe(1);
    expect(sidePreferenceP({ a: 0, b: 0 })).toBeNull();
    // Large runs stay numbers: 2 × 2^-1046 (no overflow to NaN or Infinity on the way).
    expect(sidePreferenceP({ a: 1046, b: 0 })).toBeCloseTo(2 * 2 ** -1046, 320);
    expect(sidePreferenceP({ a: 50_000, b: 50_000 })).toBeCloseTo(1, 12);
  });

  it('says when a pairwise judge’s answers follow the side, and when they do not', () => {
    const pairwise = {
      mode: 'pairwise' as const,
      subject: 'replay',
      judgings: 194,
      subjectAsA: 97,
      a: 194,
      b: 0,
      tie: 0,
      unparsed: 0,
    };
    expect(judgeSidesText(pairwise)).toEqual({
      text: 'The pairwise judge answered A in 194 of 194 judgings, B in 0, a tie in 0; replay was response A in 97 of them. Each simulator held each side about as often, so a judge that reads the responses answers A about as often as B: this split (sign test p < 0.001) says it prefers response A whatever it holds, and its win shares say little about the simulators.',
      preference: true,
    });
    expect(
      judgeSidesText({ ...pairwise, judgings: 12, subjectAsA: 6, a: 5, b: 5, tie: 1, unparsed: 1 }),
    ).toEqual({
      text: 'The pairwise judge answered A in 5 of 12 judgings, B in 5, a tie in 1, nothing readable in 1; replay was response A in 6 of them. No preference for a side shows (sign test p = 1.0).',
      preference: false,
    });
    expect(judgeSidesText({ ...pairwise, judgings: 0, subjectAsA: 0, a: 0 })).toBeNull();
  });

  it('says the same of a Turing judge, whose sides hold the real observation', () => {
    expect(
      judgeSidesText({
        mode: 'turing',
        subject: 'real',
        judgings: 12,
        subjectAsA: 5,
        a: 1,
        b: 11,
        tie: 0,
        unparsed: 0,
      }),
    ).toEqual({
      text: 'The Turing judge answered A in 1 of 12 judgings, B in 11; the real observation was response A in 5 of them. The real observation held each side about as often, so a judge that reads the responses answers A about as often as B: this split (sign test p = 0.0063) says it prefers response B whatever it holds, and its fooled shares say little about the simulators.',
      preference: true,
    });
  });
});

describe('what k judgings per item will not do, said before a run', () => {
  it('says that a score judge at temperature 0 is asked the same prompt k times', () => {
    expect(judgeRepeatsNote({ mode: 'score', repeats: 3, temperature: 0 })).toBe(
      '3 judgings at temperature 0 send the judge the same prompt 3 times: a server that decodes greedily answers alike, so the spread reads 0 at 3 times the cost; raise the temperature for judgings that can differ',
    );
    expect(judgeRepeatsNote({ mode: 'score', repeats: 3, temperature: 0.7 })).toBeNull();
    expect(judgeRepeatsNote({ mode: 'score', repeats: 1, temperature: 0 })).toBeNull();
  });

  it('says that an odd k cannot ask a side-swapping judge each way equally', () => {
    expect(judgeRepeatsNote({ mode: 'pairwise', repeats: 3, temperature: 0 })).toBe(
      'with an odd k (3), each item is asked one way round 2 times and the other 1: an even k balances the sides within every item',
    );
    expect(judgeRepeatsNote({ mode: 'turing', repeats: 5, temperature: 1 })).toContain(
      'one way round 3 times and the other 2',
    );
    // Sides swap in turn, so the repeats differ whatever the temperature.
    expect(judgeRepeatsNote({ mode: 'turing', repeats: 2, temperature: 0 })).toBeNull();
    expect(judgeRepeatsNote({ mode: 'pairwise', repeats: 1, temperature: 0 })).toBeNull();
  });
});
