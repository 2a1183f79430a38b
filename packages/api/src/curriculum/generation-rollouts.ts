import {
  divergentStepsOf,
  divergencesByTask,
  GenerationStatsRecord,
  parseRolloutExternalId,
  type RolloutId,
  type SimulatedRolloutSteps,
  type TaskDivergences,
} from '@terrarium/curriculum';
import type { CurriculumRunRecord, Store } from '@terrarium/db';
import type { TrajectorySummary } from '@terrarium/schema';
import { listDatasetTrajectories, loadTrajectory } from '../simulate/load-trajectories';

export interface StoredRollout extends RolloutId {
  summary: TrajectorySummary;
}

/** The stored rollouts of one generation of a run (named by `rolloutExternalId`). */
export async function generationRollouts(
  store: Store,
  run: CurriculumRunRecord,
  generation: number,
): Promise<StoredRollout[]> {
  const dataset = await store.getDatasetByName(run.rolloutsDataset);
  if (dataset === null) return [];
  return (await listDatasetTrajectories(store, dataset.id)).flatMap((summary) => {
    const id = parseRolloutExternalId(run.id, summary.externalId);
    return id === null || id.generation !== generation ? [] : [{ ...id, summary }];
  });
}

/**
 * Simulated vs executable for one generation, per task (`divergencesByTask` of
 * @terrarium/curriculum), its divergent steps read from the stored simulated rollouts. Empty for
 * a run without a simulator.
 */
export async function generationDivergences(
  store: Store,
  run: CurriculumRunRecord,
  generation: number,
): Promise<TaskDivergences[]> {
  const recorded = (await store.listCurriculumGenerations(run.id)).find(
    (row) => row.generation === generation,
  );
  if (recorded === undefined) return [];
  const simulated: SimulatedRolloutSteps[] = [];
  for (const rollout of await generationRollouts(store, run, generation)) {
    if (rollout.mode !== 'simulated') continue;
    const detail = await store.getTrajectory(rollout.summary.id);
    if (detail === null) continue;
    simulated.push({
      lineageId: rollout.lineageId,
      probe: rollout.probe,
      trajectoryId: rollout.summary.id,
      datasetId: rollout.summary.datasetId,
      steps: divergentStepsOf(await loadTrajectory(store, detail)),
    });
  }
  return divergencesByTask(GenerationStatsRecord.parse(recorded.stats), simulated);
}
