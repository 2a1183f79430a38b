import type { CurriculumCheckpoint } from '../evolve/checkpoint';
import type { WorldFactory } from '../tasks/gates';
import type { ExportableTask } from './task-export';

/** Every task a run made (the whole ladder, seeds included), or each lineage's current one. */
export const CURRICULUM_TASK_SELECTIONS = ['all', 'current'] as const;
export type CurriculumTaskSelection = (typeof CURRICULUM_TASK_SELECTIONS)[number];

/**
 * The tasks of a curriculum run as it stood after its last recorded generation, lineage by
 * lineage and easiest first, each with where it sits in the curriculum. Every one passed the
 * gates when it was made; its world is rebuilt by `createWorld` (the run's seed worlds with the
 * overlay the mutations added) in the state the gates ran it from (seed 0).
 */
export function curriculumTasks(
  runId: string,
  checkpoint: CurriculumCheckpoint,
  createWorld: WorldFactory,
  selection: CurriculumTaskSelection,
): ExportableTask[] {
  const tasks: ExportableTask[] = [];
  for (const lineage of checkpoint.lineages) {
    const nodes = lineage.nodes
      .filter((node) => selection === 'all' || node.task.id === lineage.currentId)
      .toSorted((a, b) => a.tier - b.tier);
    for (const node of nodes) {
      tasks.push({
        task: node.task,
        world: () => createWorld(node.task.world, 0),
        metadata: {
          curriculum_run: runId,
          curriculum_lineage: lineage.id,
          curriculum_tier: node.tier,
          curriculum_axis: node.axis ?? 'seed',
          curriculum_generation: node.generation,
          ...(node.parentId === null ? {} : { curriculum_parent: node.parentId }),
        },
      });
    }
  }
  return tasks;
}
