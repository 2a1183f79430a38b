import { z } from 'zod';
import type { JudgeConfig } from './bench';

/**
 * What a Turing or pairwise judge answered, by side, over a run's judgings whose sides were
 * balanced (the real observation, or each simulator, shown as response A on about half of them),
 * and how often the side's `subject` was response A.
 */
export const JudgeSides = z.object({
  mode: z.enum(['turing', 'pairwise']),
  /** Turing mode: `real` (the real observation); pairwise: the run's first simulator. */
  subject: z.string(),
  judgings: z.number().int().nonnegative(),
  /** Judgings in which the subject was response A. */
  subjectAsA: z.number().int().nonnegative(),
  a: z.number().int().nonnegative(),
  b: z.number().int().nonnegative(),
  tie: z.number().int().nonnegative(),
  /** Answers that named neither (a failed request, an answer that could not be read). */
  unparsed: z.number().int().nonnegative(),
});
export type JudgeSides = z.infer<typeof JudgeSides>;

/** Below this, a side preference is reported as one. */
const SIDE_PREFERENCE_ALPHA = 0.01;

/**
 * The two-sided exact sign test of the A answers against the B answers (ties left out): how likely
 * a judge with no preference for a side gives a split at least this uneven. Null without any.
 */
export function sidePreferenceP(sides: Pick<JudgeSides, 'a' | 'b'>): number | null {
  const n = sides.a + sides.b;
  if (n === 0) return null;
  const k = Math.max(sides.a, sides.b);
  // Binomial(n, 1/2) tail in log space: C(n, i) / 2^n for i >= k.
  const logFactorial = [0];
  for (let i = 1; i <= n; i++) logFactorial.push((logFactorial[i - 1] ?? 0) + Math.log(i));
  const logTerm = (i: number) =>
    (logFactorial[n] ?? 0) - (logFactorial[i] ?? 0) - (logFactorial[n - i] ?? 0) - n * Math.LN2;
  let tail = 0;
  for (let i = k; i <= n; i++) tail += Math.exp(logTerm(i));
  return Math.min(1, 2 * tail);
}

function pText(p: number): string {
  return p < 0.001 ? 'p < 0.001' : `p = ${p.toPrecision(2)}`;
}

/**
 * One paragraph on what the judge answered by side, for the run page and the CLI alike; null when
 * no judging was asked with balanced sides. `preference`: the split is too uneven for a judge
 * that reads the responses, so its shares say little about the simulators.
 */
export function judgeSidesText(sides: JudgeSides): { text: string; preference: boolean } | null {
  if (sides.judgings === 0) return null;
  const unread = sides.unparsed === 0 ? '' : `, nothing readable in ${sides.unparsed}`;
  const tie = sides.mode === 'pairwise' ? `, a tie in ${sides.tie}` : '';
  const subject = sides.mode === 'turing' ? 'the real observation' : sides.subject;
  const counts =
    `The ${sides.mode === 'turing' ? 'Turing' : 'pairwise'} judge answered A in ${sides.a} of ` +
    `${sides.judgings} judgings, B in ${sides.b}${tie}${unread}; ${subject} was response A in ` +
    `${sides.subjectAsA} of them.`;
  const p = sidePreferenceP(sides);
  if (p === null) return { text: counts, preference: false };
  if (p < SIDE_PREFERENCE_ALPHA) {
    const side = sides.a > sides.b ? 'A' : 'B';
    const held =
      sides.mode === 'turing'
        ? 'The real observation held each side about as often'
        : 'Each simulator held each side about as often';
    const shares = sides.mode === 'turing' ? 'fooled shares' : 'win shares';
    return {
      text: `${counts} ${held}, so a judge that reads the responses answers A about as often as B: this split (sign test ${pText(p)}) says it prefers response ${side} whatever it holds, and its ${shares} say little about the simulators.`,
      preference: true,
    };
  }
  return {
    text: `${counts} No preference for a side shows (sign test ${pText(p)}).`,
    preference: false,
  };
}

/**
 * What a judge's k judgings per item will not do, said before a run starts (null: nothing to say).
 * Score mode asks the same prompt each time, so at temperature 0 a server that decodes greedily
 * gives the same answer k times and the spread reads 0 at k times the cost. Turing and pairwise
 * judgings swap the sides in turn, so an odd k asks one side once more than the other.
 */
export function judgeRepeatsNote(
  judge: Pick<JudgeConfig, 'mode' | 'repeats' | 'temperature'>,
): string | null {
  const k = judge.repeats;
  if (k < 2) return null;
  if (judge.mode === 'score') {
    return judge.temperature === 0
      ? `${k} judgings at temperature 0 send the judge the same prompt ${k} times: a server that decodes greedily answers alike, so the spread reads 0 at ${k} times the cost; raise the temperature for judgings that can differ`
      : null;
  }
  return k % 2 === 1
    ? `with an odd k (${k}), each item is asked one way round ${(k + 1) / 2} times and the other ${(k - 1) / 2}: an even k balances the sides within every item`
    : null;
}
