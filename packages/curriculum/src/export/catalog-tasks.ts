import { z } from 'zod';
import type { EnvService } from '../sessions/env-service';
import type { ExportableTask, TaskExport } from './task-export';

/** The tasks of an environment catalog to export, or the asked-for ids it does not serve. */
export type CatalogTasks = { ok: true; tasks: ExportableTask[] } | { ok: false; missing: string[] };

/**
 * The asked-for tasks of a list, in the list's order (all of them when `ids` is empty or absent),
 * or the ids it does not hold.
 */
export function pickTasks(tasks: readonly ExportableTask[], ids?: readonly string[]): CatalogTasks {
  if (ids === undefined || ids.length === 0) return { ok: true, tasks: [...tasks] };
  const wanted = new Set(ids);
  const held = new Set(tasks.map(({ task }) => task.id));
  const missing = [...wanted].filter((id) => !held.has(id));
  if (missing.length > 0) return { ok: false, missing };
  return { ok: true, tasks: tasks.filter(({ task }) => wanted.has(task.id)) };
}

/**
 * The tasks an environment server serves (builtin, posted and generated ones), each with its
 * world as a session on it starts (seed 0, as the builtin tasks' export builds them): what
 * `GET /v1/tasks` lists is what an export writes. `ids` keeps only those, in the catalog's order.
 */
export function catalogTasks(
  env: Pick<EnvService, 'tasks' | 'worlds'>,
  ids?: readonly string[],
): CatalogTasks {
  const listed = env.tasks.list().map((task) => ({
    task,
    world: () => {
      const entry = env.worlds.get(task.world.id);
      // A catalog keeps only tasks whose world it has; said, not thrown past the export.
      if (entry === undefined) throw new Error(`no world ${task.world.id}`);
      return entry.create(task.world.params, 0);
    },
  }));
  return pickTasks(listed, ids);
}

const Rejections = z.array(z.object({ task: z.string(), reason: z.string() }));

/** A `TaskExport` read back from JSON (`POST /v1/tasks/export` answers one). */
export const TaskExportJson = z.discriminatedUnion('format', [
  z.object({
    format: z.literal('jsonl'),
    text: z.string(),
    exported: z.array(z.string()),
    rejected: Rejections,
  }),
  z.object({
    format: z.literal('harbor'),
    files: z.array(z.object({ path: z.string(), content: z.string(), executable: z.boolean() })),
    exported: z.array(z.string()),
    rejected: Rejections,
  }),
]);

/**
 * The most tasks one `POST /v1/tasks/export` builds: each is a world built and written out on the
 * server's thread, so a catalog of generated tasks is exported a page at a time, not in one stall.
 */
export const MAX_EXPORT_TASKS = 200;

/** What `POST /v1/tasks/export` takes: the format, and the task ids to export (all when absent). */
export const TaskExportRequest = z.object({
  format: z.enum(['jsonl', 'harbor']),
  tasks: z.array(z.string().min(1)).max(MAX_EXPORT_TASKS).optional(),
});

/** What `GET /v1/tasks` answers, as far as an export reads it: the ids, in the catalog's order. */
export const TaskListJson = z.object({ tasks: z.array(z.object({ id: z.string() })) });

/** Exports of consecutive pages of tasks, as one export of all of them. */
export function joinTaskExports(
  format: TaskExport['format'],
  parts: readonly TaskExport[],
): TaskExport {
  const exported = parts.flatMap((part) => part.exported);
  const rejected = parts.flatMap((part) => part.rejected);
  if (format === 'jsonl') {
    const text = parts.map((part) => (part.format === 'jsonl' ? part.text : '')).join('');
    return { format, text, exported, rejected };
  }
  const files = parts.flatMap((part) => (part.format === 'harbor' ? part.files : []));
  return { format, files, exported, rejected };
}
