import { buildTerminalWorld, reconstructWorkspace } from '@terrarium/executable-worlds';
import type { Trajectory } from '@terrarium/schema';
import { BUILTIN_TASKS } from '../tasks/builtin-tasks';
import { taskFromTerminalTrajectory } from '../tasks/from-trajectory';
import type { WorldFactory } from '../tasks/gates';
import { createTaskCatalog, type TaskCatalog } from '../tasks/task-catalog';
import {
  createWorldCatalog,
  SCRATCH_WORLD,
  type WorldCatalog,
  type WorldEntry,
} from '../worlds/world-catalog';
import { SessionManager, type SessionLimits } from './session-manager';

export interface EnvService {
  worlds: WorldCatalog & { add(entry: WorldEntry): void };
  tasks: TaskCatalog;
  sessions: SessionManager;
  /** Settles when the builtin tasks have passed their gates. */
  ready: Promise<void>;
}

export interface EnvServiceOptions {
  now: () => number;
  newId: () => string;
  limits?: Partial<SessionLimits>;
  /** More worlds besides `scratch` (e.g. reconstructed terminal worlds). */
  worlds?: WorldEntry[];
}

/** The catalogs and the session manager behind the environment server, wired together. */
export function createEnvService(options: EnvServiceOptions): EnvService {
  const worlds = createWorldCatalog([SCRATCH_WORLD, ...(options.worlds ?? [])]);
  const createWorld: WorldFactory = (ref, seed) => {
    const entry = worlds.get(ref.id);
    if (entry === undefined) throw new Error(`no world ${ref.id}`);
    return entry.create(ref.params, seed);
  };
  const tasks = createTaskCatalog(createWorld);
  const sessions = new SessionManager({
    worlds,
    tasks,
    now: options.now,
    newId: options.newId,
    ...(options.limits === undefined ? {} : { limits: options.limits }),
  });
  const ready = (async () => {
    for (const task of BUILTIN_TASKS) {
      const added = await tasks.add(task);
      // A builtin task that fails its gates is a bug in this package, not bad input.
      if (!added.accepted)
        throw new Error(`builtin task ${task.id}: ${added.report.reasons.join('; ')}`);
    }
  })();
  return { worlds, tasks, sessions, ready };
}

export interface TrajectoryTasksReport {
  accepted: string[];
  rejected: { trajectory: string; reason: string }[];
}

/**
 * Generates a task from each terminal or SWE trajectory (see `taskFromTerminalTrajectory`), serves
 * its reconstructed world as `traj:<externalId>` and adds the tasks that pass their gates.
 */
export async function addTrajectoryTasks(
  env: EnvService,
  trajectories: Trajectory[],
  /** Keeps ids of different datasets apart (their trajectories may share external ids). */
  namespace = 'traj',
): Promise<TrajectoryTasksReport> {
  const report: TrajectoryTasksReport = { accepted: [], rejected: [] };
  for (const trajectory of trajectories) {
    if (trajectory.domain !== 'terminal' && trajectory.domain !== 'swe') {
      report.rejected.push({
        trajectory: trajectory.externalId,
        reason: `a ${trajectory.domain} trajectory has no terminal world`,
      });
      continue;
    }
    const workspace = reconstructWorkspace(trajectory);
    const build = () => buildTerminalWorld(trajectory, { workspace });
    const worldId = `${namespace}:${trajectory.externalId}`;
    const generated = await taskFromTerminalTrajectory({
      trajectory,
      worldId,
      buildWorld: build,
      taskIdPrefix: `${namespace}.`,
    });
    if (!generated.ok) {
      report.rejected.push({ trajectory: generated.trajectory, reason: generated.reason });
      continue;
    }
    env.worlds.add({
      id: worldId,
      description: `reconstructed from ${trajectory.externalId}`,
      create: build,
    });
    const added = await env.tasks.add(generated.task);
    if (added.accepted) report.accepted.push(generated.task.id);
    else
      report.rejected.push({
        trajectory: trajectory.externalId,
        reason: added.report.reasons.join('; '),
      });
  }
  return report;
}
