import {
  buildTerminalWorld,
  createTerminalWorld,
  reconstructWorkspace,
  type TerminalWorld,
} from '@terrarium/executable-worlds';
import type { Trajectory } from '@terrarium/schema';
import { BUILTIN_TASKS } from '../tasks/builtin-tasks';
import { taskFromTerminalTrajectory } from '../tasks/from-trajectory';
import type { EmptyWorldFactory, GateReport, WorldFactory } from '../tasks/gates';
import type { CodeRunner } from '../tasks/verifier';
import { Task } from '../tasks/task';
import { createTaskCatalog, type TaskCatalog } from '../tasks/task-catalog';
import {
  createWorldCatalog,
  SCRATCH_WORLD,
  worldParamsProblem,
  type WorldCatalog,
  type WorldEntry,
} from '../worlds/world-catalog';
import { SessionManager, type SessionLimits } from './session-manager';

export interface EnvService {
  worlds: WorldCatalog & { add(entry: WorldEntry): void };
  tasks: TaskCatalog;
  sessions: SessionManager;
  /** Settles when the builtin tasks have passed their gates and saved ones are back. */
  ready: Promise<void>;
  persistence: EnvPersistence | null;
  /** What `ready` brought back from the store (empty without persistence). */
  restored: RestoreReport;
}

/** A built world as its recipe: reconstructed from a stored trajectory of a dataset. */
export interface WorldRecipe {
  id: string;
  kind: 'trajectory';
  description: string;
  spec: { dataset: string; trajectory: string };
}

export interface RestoreReport {
  worlds: number;
  tasks: number;
  /** Saved worlds or tasks that could not come back (dataset deleted, world gone), and why. */
  skipped: { id: string; reason: string }[];
}

/**
 * Keeps tasks and built worlds across restarts. Sessions are not kept: they live in memory and a
 * restart ends them (a trainer opens new ones on the same task ids). The API layer implements it
 * over the store; this package stays free of I/O.
 */
export interface EnvPersistence {
  saveTask(task: Task, report: GateReport): Promise<void>;
  deleteTask(id: string): Promise<void>;
  saveWorld(recipe: WorldRecipe): Promise<void>;
  /** Saved worlds rebuilt as catalog entries (or skipped with a reason) and saved task documents. */
  load(): Promise<{
    worlds: WorldEntry[];
    tasks: { id: string; task: unknown }[];
    skipped: { id: string; reason: string }[];
  }>;
}

export interface EnvServiceOptions {
  now: () => number;
  newId: () => string;
  limits?: Partial<SessionLimits>;
  /** More worlds besides `scratch` (e.g. reconstructed terminal worlds). */
  worlds?: WorldEntry[];
  /** Saves accepted tasks and built worlds, and brings them back on start. */
  persistence?: EnvPersistence;
  /** Runs code verifiers in a sandbox (without it, a code check fails saying so). */
  runCode?: CodeRunner;
  /** Worlds that take I/O to build (tool worlds on benchmark files): in before saved tasks return. */
  loadWorlds?: () => Promise<WorldEntry[]>;
}

/** The catalogs and the session manager behind the environment server, wired together. */
export function createEnvService(options: EnvServiceOptions): EnvService {
  const worlds = createWorldCatalog([SCRATCH_WORLD, ...(options.worlds ?? [])]);
  const createWorld: WorldFactory = (ref, seed) => {
    const entry = worlds.get(ref.id);
    if (entry === undefined) throw new Error(`no world ${ref.id}`);
    return entry.create(ref.params, seed);
  };
  const emptyWorld: EmptyWorldFactory = (ref) => worlds.get(ref.id)?.empty?.(ref.params);
  const persistence = options.persistence ?? null;
  const verifier = options.runCode === undefined ? {} : { runCode: options.runCode };
  const tasks = createTaskCatalog(
    createWorld,
    persistence === null
      ? undefined
      : {
          save: (task, report) => persistence.saveTask(task, report),
          remove: (id) => persistence.deleteTask(id),
        },
    verifier,
    emptyWorld,
  );
  const restored: RestoreReport = { worlds: 0, tasks: 0, skipped: [] };
  const worldParamsProblemOf = (task: Task): string | null => {
    const entry = worlds.get(task.world.id);
    return entry === undefined ? null : worldParamsProblem(entry, task.world.params);
  };
  const sessions = new SessionManager({
    worlds,
    tasks,
    now: options.now,
    newId: options.newId,
    verifier,
    ...(options.limits === undefined ? {} : { limits: options.limits }),
  });
  const ready = (async () => {
    for (const task of BUILTIN_TASKS) {
      const added = await tasks.add(task, { save: false });
      // A builtin task that fails its gates is a bug in this package, not bad input.
      if (!added.accepted)
        throw new Error(`builtin task ${task.id}: ${added.report.reasons.join('; ')}`);
    }
    try {
      for (const entry of (await options.loadWorlds?.()) ?? []) worlds.add(entry);
    } catch (error) {
      // Unreadable benchmark files cost their worlds, not the server: the rest is served.
      restored.skipped.push({
        id: 'loadWorlds',
        reason: error instanceof Error ? error.message : String(error),
      });
    }
    if (persistence === null) return;
    let saved: Awaited<ReturnType<EnvPersistence['load']>>;
    try {
      saved = await persistence.load();
    } catch (error) {
      // A store that cannot be read costs the saved tasks (reported), not the builtin ones.
      restored.skipped.push({
        id: 'store',
        reason: error instanceof Error ? error.message : String(error),
      });
      return;
    }
    restored.skipped.push(...saved.skipped);
    for (const entry of saved.worlds) {
      worlds.add(entry);
      restored.worlds++;
    }
    for (const { id, task } of saved.tasks) {
      const parsed = Task.safeParse(task);
      if (!parsed.success) {
        restored.skipped.push({ id, reason: `not a task any more: ${parsed.error.message}` });
      } else if (tasks.get(parsed.data.id) !== undefined) {
        // A builtin task of the same id: the code's version wins over a saved copy.
        restored.skipped.push({ id, reason: 'a builtin task has this id' });
      } else if (worlds.get(parsed.data.world.id) === undefined) {
        restored.skipped.push({ id, reason: `its world ${parsed.data.world.id} is gone` });
      } else {
        // Saved before worlds refused params they ignore: listed, it could never be opened.
        const wrong = worldParamsProblemOf(parsed.data);
        if (wrong === null) {
          tasks.restore(parsed.data);
          restored.tasks++;
        } else restored.skipped.push({ id, reason: `world.params.${wrong}` });
      }
    }
  })();
  return { worlds, tasks, sessions, ready, persistence, restored };
}

/** The catalog entry of a terminal or SWE trajectory's reconstructed world (fresh per create). */
export function trajectoryWorldEntry(
  trajectory: Trajectory,
  worldId: string,
  description = `reconstructed from ${trajectory.externalId}`,
): WorldEntry & { create: () => TerminalWorld } {
  const workspace = reconstructWorkspace(trajectory);
  return {
    id: worldId,
    description,
    create: () => buildTerminalWorld(trajectory, { workspace }),
    // Where the agent started, with no files: the gate sees what the commands print over nothing.
    empty: () =>
      createTerminalWorld(`${worldId}:empty`, { cwd: workspace.cwd, env: {}, entries: [] }),
  };
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
  /**
   * The stored dataset the trajectories come from: with persistence, worlds are saved as recipes.
   * `sourceIds` maps the trajectories' ids to the ids of the imported file, for the worlds'
   * descriptions (a store id such as 440 means nothing to whoever lists the worlds).
   */
  origin?: { dataset: string; sourceIds?: ReadonlyMap<string, string> },
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
    const worldId = `${namespace}:${trajectory.externalId}`;
    const sourceId = origin?.sourceIds?.get(trajectory.externalId) ?? trajectory.externalId;
    const entry = trajectoryWorldEntry(
      trajectory,
      worldId,
      `reconstructed from ${namespace} trajectory ${sourceId}`,
    );
    const build = entry.create;
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
    env.worlds.add(entry);
    if (origin !== undefined && env.persistence !== null) {
      await env.persistence.saveWorld({
        id: worldId,
        kind: 'trajectory',
        description: entry.description,
        spec: { dataset: origin.dataset, trajectory: trajectory.externalId },
      });
    }
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
