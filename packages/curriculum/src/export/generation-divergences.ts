import type { GenerationStatsRecord } from '../evolve/checkpoint';
import type { DivergentStep } from './rollout-trajectory';

/** A divergent step of one stored simulated rollout. */
export interface RolloutDivergence extends DivergentStep {
  trajectoryId: string;
  datasetId: string;
  probe: number;
}

/** A stored simulated rollout of one lineage with its divergent steps (`divergentStepsOf`). */
export interface SimulatedRolloutSteps {
  lineageId: string;
  probe: number;
  trajectoryId: string;
  datasetId: string;
  steps: readonly DivergentStep[];
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

function passRate(passes: number, rollouts: number): number {
  return rollouts === 0 ? 0 : passes / rollouts;
}

/**
 * Simulated vs executable for one generation, per task: the two pass rates from the generation's
 * recorded figures, and every divergent step of its stored simulated rollouts. Tasks played
 * without a simulator are left out.
 */
export function divergencesByTask(
  stats: GenerationStatsRecord,
  simulated: readonly SimulatedRolloutSteps[],
): TaskDivergences[] {
  const byLineage = new Map<string, RolloutDivergence[]>();
  for (const rollout of simulated) {
    const list = byLineage.get(rollout.lineageId) ?? [];
    for (const step of rollout.steps) {
      list.push({
        ...step,
        trajectoryId: rollout.trajectoryId,
        datasetId: rollout.datasetId,
        probe: rollout.probe,
      });
    }
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
            passRateExecutable: passRate(group.passes, group.rollouts),
            passRateSimulated: passRate(group.simulated.passes, group.rollouts),
            steps: group.simulated.steps,
            divergent: (byLineage.get(group.lineageId) ?? []).toSorted(
              // Steps the simulator could not answer first, then the lowest scores.
              (a, b) =>
                (a.contentScore ?? -1) - (b.contentScore ?? -1) ||
                a.probe - b.probe ||
                a.step - b.step,
            ),
          },
        ],
  );
}
