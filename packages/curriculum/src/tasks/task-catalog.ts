import { runGates, type GateReport, type WorldFactory } from './gates';
import { Task, type TaskInput } from './task';

export type AddTaskResult =
  { accepted: true; task: Task; report: GateReport } | { accepted: false; report: GateReport };

/** Tasks ready for use: only tasks that passed every gate get in. */
export interface TaskCatalog {
  get(id: string): Task | undefined;
  list(): Task[];
  /** Runs the gates; stores the task only when all hold. */
  add(input: TaskInput | Task): Promise<AddTaskResult>;
}

export function createTaskCatalog(createWorld: WorldFactory): TaskCatalog {
  const tasks = new Map<string, Task>();
  return {
    get: (id) => tasks.get(id),
    list: () => [...tasks.values()],
    async add(input) {
      const task = Task.parse(input);
      const report = await runGates(task, createWorld);
      if (!report.accepted) return { accepted: false, report };
      tasks.set(task.id, task);
      return { accepted: true, task, report };
    },
  };
}
