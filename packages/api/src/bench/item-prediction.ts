import type { BenchRunDeps } from '@terrarium/jobs';
import type { BenchItem, BenchRun, ItemScore, Observation, UnitUsage } from '@terrarium/schema';
import { answeredOrThrow, simContextOfItem, type Transition } from '@terrarium/worlds';

export interface ItemPrediction {
  observation: Observation;
  reasoning: string | null;
  scores: ItemScore[];
  /** What the simulator's calls cost, priced as the run's units are. */
  usage: UnitUsage;
  /** What the run's judge spent on it, when the run has a per-unit judge. */
  judgeUsage?: UnitUsage;
}

/**
 * The prediction and scores of `sim` on one bench item, exactly as a bench run computes them: the
 * run's simulator construction (the bench's own corpus; retrieval leaves the item's trajectory out
 * by its content key, never by a store id), the run's history (closed loop included) and its
 * scoring. Anything that shows or recomputes an item's prediction outside a run goes through here,
 * so the drill-down, a re-run and the worker cannot disagree on the same item and simulator.
 */
export async function predictBenchItem(
  deps: BenchRunDeps,
  run: BenchRun,
  sim: string,
  item: BenchItem,
  signal?: AbortSignal,
): Promise<ItemPrediction> {
  const simulator = await deps.simulatorFor(run, sim, item);
  const history: Transition[] =
    run.mode.kind === 'closed' && deps.historyFor
      ? await deps.historyFor(run, sim, item)
      : item.history;
  // A miss of replay or retrieval is a failed prediction, as in a run.
  const predicted = answeredOrThrow(
    await simulator.predict(simContextOfItem(item), history, item.action, {
      ...deps.predictOptions,
      ...(signal === undefined ? {} : { signal }),
    }),
  );
  const { scores, judgeUsage } = await deps.score(item, sim, predicted.observation, run);
  const usage: UnitUsage = {
    inputTokens: predicted.usage.inputTokens,
    outputTokens: predicted.usage.outputTokens,
    costUsd: deps.costOf === undefined ? 0 : deps.costOf(sim, predicted.usage),
  };
  return {
    observation: predicted.observation,
    reasoning: predicted.reasoning ?? null,
    scores,
    usage,
    ...(judgeUsage === undefined ? {} : { judgeUsage }),
  };
}
