import { JUDGE_DIMENSIONS, type ItemScore, type JsonValue } from '@terrarium/schema';
import { canonicalJson, unitFromText } from '../hash';
import { parseJudgeAnswer, parsePairwiseAnswer, parseTuringAnswer, type Choice } from './parse';

/** Metric id of the judge's mean over the five dimensions. */
export const JUDGE_OVERALL = 'overall';
/** Metric id of Turing mode: share of judgings the simulated response passed as the real one. */
export const TURING_METRIC = 'turing-fooled';

/** Raw answers kept in a detail are cut to this many characters. */
const MAX_RAW_ANSWER = 2000;

function spread(values: readonly number[]): JsonValue {
  if (values.length === 0) return null;
  const mean = values.reduce((sum, value) => sum + value, 0) / values.length;
  const variance = values.reduce((sum, value) => sum + (value - mean) ** 2, 0) / values.length;
  return {
    min: Math.min(...values),
    max: Math.max(...values),
    sd: Math.round(Math.sqrt(variance) * 1000) / 1000,
  };
}

function meanOrNull(values: readonly number[]): number | null {
  return values.length === 0 ? null : values.reduce((sum, value) => sum + value, 0) / values.length;
}

/**
 * The judge scores of one prediction from k judgings: one per dimension and `overall`, each the
 * mean over the parseable answers of (raw − 1) / 4, with the spread over judgings in the detail.
 * When no answer parses, every value is null (counted as missing) and the detail keeps the raw
 * answers and the parse errors.
 */
export function judgeItemScores(
  itemId: string,
  sim: string,
  answers: readonly string[],
): ItemScore[] {
  const parses = answers.map(parseJudgeAnswer);
  const parsed = parses.flatMap((parse) => (parse.ok ? [parse] : []));
  const unparsed = answers.flatMap((answer, i) => {
    const parse = parses[i];
    return parse === undefined || parse.ok
      ? []
      : [{ error: parse.error, answer: answer.slice(0, MAX_RAW_ANSWER) }];
  });
  const base = { itemId, sim, source: 'judge' as const };
  const scores: ItemScore[] = JUDGE_DIMENSIONS.map((dimension) => {
    const values = parsed.map((parse) => parse.scores[dimension]);
    return {
      ...base,
      metric: dimension,
      value: meanOrNull(values),
      detail: { judgings: answers.length, parsed: values.length, spread: spread(values) },
    };
  });
  const overalls = parsed.map((parse) => parse.overall);
  scores.push({
    ...base,
    metric: JUDGE_OVERALL,
    value: meanOrNull(overalls),
    detail: {
      judgings: answers.length,
      parsed: overalls.length,
      spread: spread(overalls),
      reasoning: parsed.map((parse) => parse.reasoning),
      unparsed,
    },
  });
  return scores;
}

/**
 * Where the real response goes in judging `judging` of a Turing prompt for an item: A or B. The
 * first judging's side comes from a seeded hash, so a rerun asks the same question and sides
 * balance over a bench; each further judging swaps sides, so with an even k each item is asked
 * both ways.
 */
export function turingOrder(itemId: string, seed: number, judging = 0): Choice {
  const first = unitFromText(canonicalJson(['turing', seed, itemId])) < 0.5;
  return first === (judging % 2 === 0) ? 'A' : 'B';
}

/**
 * The share of a side-balanced verdict (Turing, pairwise): its sides were chosen to balance over
 * all k judgings, so a share from some of them would lean to the sides those were asked on. It
 * needs every judging to name a side; null (missing, asked again by a retry) otherwise.
 */
function balancedShare(picks: readonly unknown[], wins: number): number | null {
  return picks.length === 0 || picks.includes(null) ? null : wins / picks.length;
}

/**
 * Turing mode over k judgings, the real response shown at `realIs[j]` in judging j: the share in
 * which the judge took the simulated response for the real one (1: indistinguishable or better at
 * passing), null unless every answer named one.
 */
export function turingItemScore(
  itemId: string,
  sim: string,
  answers: readonly string[],
  realIs: readonly Choice[],
): ItemScore {
  const picks = answers.map(parseTuringAnswer);
  const fooled = picks.filter((pick, judging) => pick !== null && pick !== realIs[judging]).length;
  return {
    itemId,
    sim,
    source: 'judge',
    metric: TURING_METRIC,
    value: balancedShare(picks, fooled),
    detail: {
      realIs: [...realIs],
      picks: picks.map((pick) => pick ?? 'unparsed'),
      unparsed: answers
        .filter((_, i) => picks[i] === null)
        .map((answer) => answer.slice(0, MAX_RAW_ANSWER)),
    },
  };
}

/**
 * Where the first simulator's prediction goes in judging `judging` of a pair: A or B. The first
 * judging's side comes from a seeded hash of the item and the pair, so over a bench each simulator
 * is shown first about half the time; each further judging swaps sides, so with an even k every
 * pair is asked in both orders. A judge that favours a position then favours neither simulator.
 */
export function pairwiseOrder(
  itemId: string,
  simA: string,
  simB: string,
  judging: number,
  seed: number,
): Choice {
  const first = unitFromText(canonicalJson(['pairwise', seed, itemId, simA, simB])) < 0.5;
  return first === (judging % 2 === 0) ? 'A' : 'B';
}

/**
 * Pairwise mode over k judgings of the pair (simA, simB), simA shown at `simAShownAs[j]` in
 * judging j: for each simulator, metric `pairwise:<other>` = its win share (a tie counts half), null
 * unless every answer named one. The detail keeps the judge's letters with the sides they were
 * asked on.
 */
export function pairwiseItemScores(
  itemId: string,
  simA: string,
  simB: string,
  answers: readonly string[],
  simAShownAs: readonly Choice[],
): ItemScore[] {
  const picks = answers.map(parsePairwiseAnswer);
  const winsA = picks.reduce<number>(
    (sum, pick, judging) =>
      sum + (pick === 'tie' ? 0.5 : pick !== null && pick === simAShownAs[judging] ? 1 : 0),
    0,
  );
  const detail: JsonValue = {
    picks: picks.map((pick) => pick ?? 'unparsed'),
    shownAsA: simAShownAs.map((side) => (side === 'A' ? simA : simB)),
    unparsed: answers
      .filter((_, i) => picks[i] === null)
      .map((answer) => answer.slice(0, MAX_RAW_ANSWER)),
  };
  const shareA = balancedShare(picks, winsA);
  const shareB = shareA === null ? null : 1 - shareA;
  return [
    { itemId, sim: simA, source: 'judge', metric: `pairwise:${simB}`, value: shareA, detail },
    {
      itemId,
      sim: simB,
      source: 'judge',
      metric: `pairwise:${simA}`,
      value: shareB,
      detail,
    },
  ];
}
