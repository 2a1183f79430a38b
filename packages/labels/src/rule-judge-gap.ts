import type { ItemScore } from '@terrarium/schema';

/**
 * |rule − judge| per item for one simulator: the rule side is the content score (the bench's
 * headline rule metric) or, without one, the mean of the rule metrics; the judge side is the mean
 * of the judge's dimensions. Both are on [0, 1].
 */
export function ruleJudgeGaps(scores: readonly ItemScore[], sim: string): Map<string, number> {
  const perItem = new Map<string, { content?: number; rules: number[]; judge: number[] }>();
  for (const score of scores) {
    if (score.sim !== sim || score.value === null) continue;
    const entry = perItem.get(score.itemId) ?? { rules: [], judge: [] };
    if (score.source === 'rule') {
      if (score.metric === 'content') entry.content = score.value;
      else entry.rules.push(score.value);
    } else if (score.source === 'judge') entry.judge.push(score.value);
    perItem.set(score.itemId, entry);
  }
  const gaps = new Map<string, number>();
  for (const [itemId, entry] of perItem) {
    const rule = entry.content ?? mean(entry.rules);
    const judge = mean(entry.judge);
    if (rule !== null && judge !== null) gaps.set(itemId, Math.abs(rule - judge));
  }
  return gaps;
}

function mean(values: readonly number[]): number | null {
  return values.length === 0 ? null : values.reduce((sum, value) => sum + value, 0) / values.length;
}
