import {
  scoreKey,
  type BenchItem,
  type ItemScore,
  type RunPrediction,
  type RunResult,
} from '@terrarium/schema';

/** One unit's result: the item's facts, the prediction and its scores (those of this unit only). */
export function runResult(
  item: BenchItem,
  prediction: RunPrediction,
  scores: readonly ItemScore[],
  { history = false }: { history?: boolean } = {},
): RunResult {
  const values: RunResult['scores'] = {};
  const details: RunResult['details'] = {};
  for (const score of scores) {
    if (score.itemId !== item.id || score.sim !== prediction.sim) continue;
    const key = scoreKey(score);
    values[key] = score.value;
    if (score.detail !== null) details[key] = score.detail;
  }
  return {
    run: prediction.runId,
    sim: prediction.sim,
    item: item.id,
    task: item.task,
    domain: item.domain,
    split: item.split,
    origin: item.origin,
    turnIndex: item.turnIndex,
    ...(history ? { history: item.history } : {}),
    action: item.action,
    real: item.real,
    predicted: prediction.observation,
    error: prediction.error,
    latencyMs: prediction.latencyMs,
    usage: prediction.usage,
    ...(prediction.judgeUsage === undefined ? {} : { judgeUsage: prediction.judgeUsage }),
    scores: values,
    details,
  };
}
