import { reconstructWorkspace } from '@terrarium/executable-worlds';
import type { Trajectory } from '@terrarium/schema';
import { taskFromTerminalTrajectory } from '../tasks/from-trajectory';
import type { Task } from '../tasks/task';
import { isTerminalWorld } from '../worlds/world-kinds';
import { trajectoryWorld, type EvolvableWorld } from './world-source';

function basename(file: string): string {
  return file.slice(file.lastIndexOf('/') + 1);
}

export interface SeedTasks {
  tasks: Task[];
  worlds: EvolvableWorld[];
  rejected: { trajectory: string; reason: string }[];
}

/**
 * The seed tasks of a curriculum: a gated task per terminal/SWE trajectory (the ENV generator),
 * each on its reconstructed world served as `traj:<externalId>` and open to overlays.
 */
export async function seedTasksFromTrajectories(trajectories: Trajectory[]): Promise<SeedTasks> {
  const seeds: SeedTasks = { tasks: [], worlds: [], rejected: [] };
  const seen = new Set<string>();
  // In source order (file, line, id), not import order: an import reads files concurrently, and
  // task ids (hence every seed a curriculum draws from them) must not depend on it.
  const ordered = trajectories.toSorted(
    (a, b) =>
      a.source.file.localeCompare(b.source.file) ||
      (a.source.line ?? 0) - (b.source.line ?? 0) ||
      a.externalId.localeCompare(b.externalId, 'en', { numeric: true }),
  );
  const rankInFile = new Map<string, number>();
  for (const [index, original] of ordered.entries()) {
    const rank = rankInFile.get(original.source.file) ?? 0;
    rankInFile.set(original.source.file, rank + 1);
    // A bare number is a counter the import handed out in the order it read files, not the
    // trajectory's identity: the task is named for its file and place in it instead.
    const trajectory = /^\d+$/.test(original.externalId)
      ? { ...original, externalId: `${basename(original.source.file)}#${rank}` }
      : original;
    if (trajectory.domain !== 'terminal' && trajectory.domain !== 'swe') {
      seeds.rejected.push({
        trajectory: original.externalId,
        reason: `a ${trajectory.domain} trajectory has no terminal world`,
      });
      continue;
    }
    // External ids may repeat across the files of one dataset; ids of worlds and tasks may not.
    const repeat = seen.has(trajectory.externalId);
    seen.add(trajectory.externalId);
    const prefix = repeat ? `traj${index}` : 'traj';
    const world = trajectoryWorld(
      `${prefix}:${trajectory.externalId}`,
      trajectory,
      reconstructWorkspace(trajectory),
    );
    const generated = await taskFromTerminalTrajectory({
      trajectory,
      worldId: world.id,
      taskIdPrefix: `${prefix}.`,
      buildWorld: () => {
        const built = world.create({}, {}, 0);
        if (!isTerminalWorld(built)) throw new Error('a trajectory world is a terminal world');
        return built;
      },
    });
    if (generated.ok) {
      // Provenance names the stored trajectory, as retrieval's leave-one-out looks it up.
      seeds.tasks.push({
        ...generated.task,
        provenance: { ...generated.task.provenance, trajectory: original.externalId },
      });
      seeds.worlds.push(world);
    } else seeds.rejected.push({ trajectory: original.externalId, reason: generated.reason });
  }
  return seeds;
}
