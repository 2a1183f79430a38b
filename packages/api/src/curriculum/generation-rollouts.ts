import { divergentStepsOf, GenerationStatsRecord, type DivergentStep } from '@terrarium/curriculum';
import type { CurriculumRunRecord, Store } from '@terrarium/db';
import type { TrajectorySummary } from '@terrarium/schema';
import { listDatasetTrajectories, loadTrajectory } from '../simulate/load-trajectories';

export interface StoredRollout {
  summary: TrajectorySummary;
  lineageId: string;
  probe: number;
  mode: 'executable' | 'simulated';
}

/** The stored rollouts of one generation of a run (`<run>/g<generation>/<lineage>/p<probe>[/sim]`). */
export async function generationRollouts(
  store: Store,
  run: CurriculumRunRecord,
  generation: number,
): Promise<StoredRollout[]> {
  const dataset = await store.getDatasetByName(run.rolloutsDataset);
  if (dataset === null) return [];
  const prefix = `${run.id}/g${generation}/`;
  return (await listDatasetTrajectories(store, dataset.id))
    .filter((row) => row.externalId.startsWith(prefix))
    .map((summary) => {
      const [lineageId = '', probe = '', sim] = summary.externalId.slice(prefix.length).split('/');
      return {
        summary,
        lineageId,
        probe: Number(probe.replace(/^p/, '')),
        mode: sim === undefined ? 'executable' : 'simulated',
      };
    });
}

export interface RolloutDivergence extends DivergentStep {
  trajectoryId: string;
  datasetId: string;
  probe: number;
}

export interface TaskDivergences {
  lineageId: string;
  taskId: string;
  tier: number;
  /** Probes played in each mode. */
  rollouts: number;
  passRateExecutable: number;
  passRateSimulated: number;
  /** Acting steps of the simulated probes. */
  steps: number;
  /** The steps whose simulated observation differs from the world's, lowest content score first. */
  divergent: RolloutDivergence[];
}

/**
 * Simulated vs executable for one generation, per task: the two pass rates (from the recorded
 * figures) and every step where the simulator's answer differs from what the executable world
 * returned for the same action, with its content score (read from the stored simulated rollouts).
 * Empty for a run without a simulator.
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
  const stats = GenerationStatsRecord.parse(recorded.stats);
  const byLineage = new Map<string, RolloutDivergence[]>();
  for (const rollout of await generationRollouts(store, run, generation)) {
    if (rollout.mode !== 'simulated') continue;
    const detail = await store.getTrajectory(rollout.summary.id);
    if (detail === null) continue;
    const steps = divergentStepsOf(await loadTrajectory(store, detail));
    const list = byLineage.get(rollout.lineageId) ?? [];
    list.push(
      ...steps.map((step) => ({
        ...step,
        trajectoryId: rollout.summary.id,
        datasetId: rollout.summary.datasetId,
        probe: rollout.probe,
      })),
    );
    byLineage.set(rollout.lineageId, list);
  }
  return stats.groups.flatMap((group) =>
    group.simulated === null
      ? []
      : [
          {
            lineageId: group.lineageId,
            taskId: group.taskId,
            tier: group.tier,
            rollouts: group.rollouts,
            passRateExecutable: group.rollouts === 0 ? 0 : group.passes / group.rollouts,
            passRateSimulated: group.rollouts === 0 ? 0 : group.simulated.passes / group.rollouts,
            steps: group.simulated.steps,
            divergent: (byLineage.get(group.lineageId) ?? []).toSorted(
              (a, b) => a.contentScore - b.contentScore || a.probe - b.probe || a.step - b.step,
            ),
          },
        ],
  );
}
