import { runGates, type EmptyWorldFactory, type GateReport, type WorldFactory } from './gates';
import type { VerifierOptions } from './verifier';
import { Task, type TaskInput } from './task';

export type AddTaskResult =
  | { accepted: true; task: Task; report: GateReport }
  | { accepted: false; report: GateReport }
  /** The id names another task already served (its one reason in `report` says so). */
  | { accepted: false; conflict: true; report: GateReport };

/** Where accepted tasks go to outlive the process (the store, through the API layer). */
export interface TaskSink {
  save(task: Task, report: GateReport): Promise<void>;
  remove(id: string): Promise<void>;
}

/** What deleting a task did: built-in tasks come back with every start, so they stay. */
export type RemoveTaskResult = 'removed' | 'missing' | 'builtin';

/** Tasks ready for use: only tasks that passed every gate get in. */
export interface TaskCatalog {
  get(id: string): Task | undefined;
  list(): Task[];
  /**
   * Runs the gates; stores the task only when all hold, saving it to the sink first unless
   * `save` is false (tasks defined in code, which every start adds again). An id already served
   * by a different task is refused before any gate runs: one id is one task for every session,
   * curriculum and export (the same task again is accepted, so adding is idempotent).
   */
  add(input: TaskInput | Task, options?: { save?: boolean }): Promise<AddTaskResult>;
  /**
   * Puts back a task that passed its gates in an earlier run (read from the store), without
   * running them again: a restart costs a read, not every oracle.
   */
  restore(task: Task): void;
  /**
   * Deletes an added task (and its saved copy): new sessions and curricula can no longer use it;
   * sessions already open on it end as they would have. Built-in tasks are refused.
   */
  remove(id: string): Promise<RemoveTaskResult>;
}

export function createTaskCatalog(
  createWorld: WorldFactory,
  sink?: TaskSink,
  verifier: VerifierOptions = {},
  /** Worlds with nothing in them, for the `world-needed` gate (see `runGates`). */
  emptyWorld?: EmptyWorldFactory,
): TaskCatalog {
  const tasks = new Map<string, Task>();
  // Tasks defined in code: named as such when an added task would take their id.
  const builtin = new Set<string>();
  return {
    get: (id) => tasks.get(id),
    list: () => [...tasks.values()],
    async add(input, options = {}) {
      const task = Task.parse(input);
      const existing = tasks.get(task.id);
      if (existing !== undefined && JSON.stringify(existing) !== JSON.stringify(task)) {
        const reason = `task id ${task.id} is taken by a different${builtin.has(task.id) ? ' built-in' : ''} task: choose another id`;
        return {
          accepted: false,
          conflict: true,
          report: { taskId: task.id, accepted: false, gates: [], reasons: [reason] },
        };
      }
      const report = await runGates(task, createWorld, 0, verifier, emptyWorld);
      if (!report.accepted) return { accepted: false, report };
      // Saved before it is served: a task a session ran is never one a restart forgets.
      if (options.save !== false) await sink?.save(task, report);
      else builtin.add(task.id);
      tasks.set(task.id, task);
      return { accepted: true, task, report };
    },
    restore(task) {
      tasks.set(task.id, task);
    },
    async remove(id) {
      if (builtin.has(id)) return 'builtin';
      if (!tasks.has(id)) return 'missing';
      // Deleted from the store first: a task a restart would bring back is not deleted.
      await sink?.remove(id);
      tasks.delete(id);
      return 'removed';
    },
  };
}
