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
 * Where the real response goes in a Turing prompt for an item: A or B, by a seeded hash, so a
 * rerun asks the same question and positions balance over a bench.
 */
export function turingOrder(itemId: string, seed: number): Choice {
  return unitFromText(canonicalJson(['turing', seed, itemId])) < 0.5 ? 'A' : 'B';
}

/**
 * Turing mode over k judgings: the share in which the judge took the simulated response for the
 * real one (1: indistinguishable or better at passing), null when no answer named one.
 */
export function turingItemScore(
  itemId: string,
  sim: string,
  answers: readonly string[],
  realIs: Choice,
): ItemScore {
  const picks = answers.map(parseTuringAnswer);
  const named = picks.filter((pick): pick is Choice => pick !== null);
  const fooled = named.filter((pick) => pick !== realIs).length;
  return {
    itemId,
    sim,
    source: 'judge',
    metric: TURING_METRIC,
    value: named.length === 0 ? null : fooled / named.length,
    detail: {
      realIs,
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
 * when no answer named one. The detail keeps the judge's letters with the sides they were asked in.
 */
export function pairwiseItemScores(
  itemId: string,
  simA: string,
  simB: string,
  answers: readonly string[],
  simAShownAs: readonly Choice[],
): ItemScore[] {
  const picks = answers.map(parsePairwiseAnswer);
  let named = 0;
  let winsA = 0;
  picks.forEach((pick, judging) => {
    if (pick === null) return;
    named++;
    if (pick === 'tie') winsA += 0.5;
    else if (pick === simAShownAs[judging]) winsA += 1;
  });
  const detail: JsonValue = {
    picks: picks.map((pick) => pick ?? 'unparsed'),
    shownAsA: simAShownAs.map((side) => (side === 'A' ? simA : simB)),
    unparsed: answers
      .filter((_, i) => picks[i] === null)
      .map((answer) => answer.slice(0, MAX_RAW_ANSWER)),
  };
  const share = (wins: number) => (named === 0 ? null : wins / named);
  return [
    { itemId, sim: simA, source: 'judge', metric: `pairwise:${simB}`, value: share(winsA), detail },
    {
      itemId,
      sim: simB,
      source: 'judge',
      metric: `pairwise:${simA}`,
      value: share(named - winsA),
      detail,
    },
  ];
}
