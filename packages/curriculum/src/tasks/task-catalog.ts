import { runGates, type GateReport, type WorldFactory } from './gates';
import type { VerifierOptions } from './verifier';
import { Task, type TaskInput } from './task';

export type AddTaskResult =
  { accepted: true; task: Task; report: GateReport } | { accepted: false; report: GateReport };

/** Where accepted tasks go to outlive the process (the store, through the API layer). */
export interface TaskSink {
  save(task: Task, report: GateReport): Promise<void>;
}

/** Tasks ready for use: only tasks that passed every gate get in. */
export interface TaskCatalog {
  get(id: string): Task | undefined;
  list(): Task[];
  /**
   * Runs the gates; stores the task only when all hold, saving it to the sink first unless
   * `save` is false (tasks defined in code, which every start adds again).
   */
  add(input: TaskInput | Task, options?: { save?: boolean }): Promise<AddTaskResult>;
  /**
   * Puts back a task that passed its gates in an earlier run (read from the store), without
   * running them again: a restart costs a read, not every oracle.
   */
  restore(task: Task): void;
}

export function createTaskCatalog(
  createWorld: WorldFactory,
  sink?: TaskSink,
  verifier: VerifierOptions = {},
): TaskCatalog {
  const tasks = new Map<string, Task>();
  return {
    get: (id) => tasks.get(id),
    list: () => [...tasks.values()],
    async add(input, options = {}) {
      const task = Task.parse(input);
      const report = await runGates(task, createWorld, 0, verifier);
      if (!report.accepted) return { accepted: false, report };
      // Saved before it is served: a task a session ran is never one a restart forgets.
      if (options.save !== false) await sink?.save(task, report);
      tasks.set(task.id, task);
      return { accepted: true, task, report };
    },
    restore(task) {
      tasks.set(task.id, task);
    },
  };
}
