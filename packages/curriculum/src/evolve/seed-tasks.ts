import { reconstructWorkspace } from '@terrarium/executable-worlds';
import type { Trajectory } from '@terrarium/schema';
import { taskFromTerminalTrajectory } from '../tasks/from-trajectory';
import type { Task } from '../tasks/task';
import { isTerminalWorld } from '../worlds/world-kinds';
import { trajectoryWorld, type EvolvableWorld } from './world-source';

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
  for (const [index, trajectory] of trajectories.entries()) {
    if (trajectory.domain !== 'terminal' && trajectory.domain !== 'swe') {
      seeds.rejected.push({
        trajectory: trajectory.externalId,
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
      seeds.tasks.push(generated.task);
      seeds.worlds.push(world);
    } else seeds.rejected.push({ trajectory: generated.trajectory, reason: generated.reason });
  }
  return seeds;
}
