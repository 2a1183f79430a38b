import type { World } from '@terrarium/executable-worlds';
import type { Task } from '../tasks/task';
import { toolsFor } from '../worlds/world-catalog';
import { isTerminalWorld } from '../worlds/world-kinds';
import { exportHarborTask, taskJsonLine, type ExportedFile, type TaskMetadata } from './harbor';

export const TASK_FORMATS = ['jsonl', 'harbor'] as const;
export type TaskFormat = (typeof TASK_FORMATS)[number];

/** A task ready to leave Terrarium: the task, its world in the initial state, facts to carry. */
export interface ExportableTask {
  task: Task;
  /** A fresh world in the task's initial state. */
  world: () => World;
  metadata?: TaskMetadata;
}

export interface TaskExportRejection {
  task: string;
  reason: string;
}

/**
 * What an export gives the caller to write (this package does no I/O): JSONL as one text, one
 * line per task; Harbor as files whose paths start with the task's folder.
 */
export type TaskExport =
  | { format: 'jsonl'; text: string; exported: string[]; rejected: TaskExportRejection[] }
  | {
      format: 'harbor';
      files: ExportedFile[];
      exported: string[];
      rejected: TaskExportRejection[];
    };

/** Task ids become folder names; keep them portable. */
export function taskFolderName(id: string): string {
  return id.replace(/[^A-Za-z0-9._-]+/g, '-');
}

/** The task's world in its initial state, or why it could not be built (its source is gone…). */
function initialWorld(entry: ExportableTask): World | string {
  try {
    return entry.world();
  } catch (error) {
    return `${entry.task.id}: its world could not be built (${error instanceof Error ? error.message : String(error)})`;
  }
}

export function exportTasks(tasks: readonly ExportableTask[], format: TaskFormat): TaskExport {
  const exported: string[] = [];
  const rejected: TaskExportRejection[] = [];
  if (format === 'jsonl') {
    const lines: string[] = [];
    for (const entry of tasks) {
      const world = initialWorld(entry);
      if (typeof world === 'string') {
        rejected.push({ task: entry.task.id, reason: world });
        continue;
      }
      lines.push(`${taskJsonLine(entry.task, toolsFor(world), entry.metadata)}\n`);
      exported.push(entry.task.id);
    }
    return { format, text: lines.join(''), exported, rejected };
  }
  const files: ExportedFile[] = [];
  const folders = new Set<string>();
  for (const entry of tasks) {
    const { task, metadata } = entry;
    const initial = initialWorld(entry);
    if (typeof initial === 'string') {
      rejected.push({ task: task.id, reason: initial });
      continue;
    }
    if (!isTerminalWorld(initial)) {
      rejected.push({
        task: task.id,
        reason: `${task.id}: a ${initial.kind} world has no Harbor form`,
      });
      continue;
    }
    const folder = taskFolderName(task.id);
    // Two ids that differ only in characters a folder name cannot hold would share a folder.
    if (folders.has(folder)) {
      rejected.push({
        task: task.id,
        reason: `${task.id}: its folder ${folder} is another task's`,
      });
      continue;
    }
    const exportedTask = exportHarborTask(task, initial, metadata);
    if (!exportedTask.ok) {
      rejected.push({ task: task.id, reason: exportedTask.reason });
      continue;
    }
    folders.add(folder);
    for (const file of exportedTask.files) files.push({ ...file, path: `${folder}/${file.path}` });
    exported.push(task.id);
  }
  return { format, files, exported, rejected };
}
