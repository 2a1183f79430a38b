import { createReadStream, existsSync } from 'node:fs';
import { readdir, stat } from 'node:fs/promises';
import path from 'node:path';
import { createDefaultEnvService } from '@terrarium/api';
import {
  BUILTIN_TASKS,
  catalogTasks,
  exportTasks,
  pickTasks,
  joinTaskExports,
  MAX_EXPORT_TASKS,
  SCRATCH_WORLD,
  Task,
  TaskExportJson,
  TaskListJson,
  taskFromTerminalTrajectory,
  type CatalogTasks,
  type ExportableTask,
  type TaskExport,
} from '@terrarium/curriculum';
import { PGLITE_SUBDIR } from '@terrarium/db';
import { buildTerminalWorld, reconstructWorkspace } from '@terrarium/executable-worlds';
import { readTrajectories } from '@terrarium/formats';
import { type Command, Option } from 'commander';
import { CliError } from '../cli-error';
import {
  connect,
  databaseUrlFromEnv,
  dataDirFor,
  disconnect,
  type DataTarget,
  type GlobalOptions,
} from '../connect';
import { authHeaders, errorMessageOf } from '../server-client';
import { exportSummary, writeTaskExport } from './task-files';

export interface TasksExportOptions extends GlobalOptions {
  format: 'jsonl' | 'harbor';
  out: string;
  from?: string[];
  task?: string[];
  json?: boolean;
}

export interface TasksExportReport {
  format: 'jsonl' | 'harbor';
  out: string;
  exported: string[];
  rejected: { trajectory: string; reason: string }[];
}

function collect(value: string, previous: string[] = []): string[] {
  return [...previous, value];
}

export function registerTasksCommand(program: Command): void {
  const tasks = program
    .command('tasks')
    .description('Verified tasks (goal, world, verifier, oracle) for RL: list and export.');
  tasks
    .command('export')
    .description(
      'Export tasks that pass their gates as JSONL or Harbor task folders: the tasks the environment server serves from the data folder (builtin, posted and generated ones, as GET /v1/tasks lists them), or tasks generated from trajectory files (--from).',
    )
    .addOption(
      new Option('--format <format>', 'jsonl: one task per line; harbor: a task folder each')
        .choices(['jsonl', 'harbor'])
        .makeOptionMandatory(),
    )
    .requiredOption(
      '--out <path>',
      'the JSONL file, or the folder that receives one folder per task',
    )
    .option(
      '--from <file>',
      'generate tasks from the trajectories of this file or folder (repeatable)',
      collect,
    )
    .option('--task <id>', 'only this task (repeatable)', collect)
    .option('--json', 'print {"format","out","exported","rejected"}')
    .action(async (_options: unknown, command: Command) => {
      await runTasksExport(command.optsWithGlobals());
    });
}

async function filesUnder(target: string): Promise<string[]> {
  const info = await stat(target).catch(() => null);
  if (info === null) throw new CliError(`no such file or folder: ${target}`);
  if (!info.isDirectory()) return [target];
  const entries = await readdir(target, { recursive: true, withFileTypes: true });
  return entries
    .filter((entry) => entry.isFile())
    .map((entry) => path.join(entry.parentPath, entry.name))
    .toSorted();
}

async function generatedTasks(
  sources: string[],
  rejected: TasksExportReport['rejected'],
): Promise<ExportableTask[]> {
  const ready: ExportableTask[] = [];
  for (const source of sources) {
    for (const file of await filesUnder(source)) {
      for await (const event of readTrajectories(createReadStream(file), { fileName: file })) {
        if (event.type !== 'trajectory') continue;
        const trajectory = event.trajectory;
        if (trajectory.domain !== 'terminal' && trajectory.domain !== 'swe') continue;
        const workspace = reconstructWorkspace(trajectory);
        const build = () => buildTerminalWorld(trajectory, { workspace });
        const result = await taskFromTerminalTrajectory({
          trajectory,
          worldId: `traj:${trajectory.externalId}`,
          buildWorld: build,
        });
        if (result.ok) ready.push({ task: result.task, world: build });
        else rejected.push({ trajectory: result.trajectory, reason: result.reason });
      }
    }
  }
  return ready;
}

function builtinTasks(): ExportableTask[] {
  return BUILTIN_TASKS.map((input) => {
    const task = Task.parse(input);
    return { task, world: () => SCRATCH_WORLD.create(task.world.params, 0) };
  });
}

/** One call to the server that holds the data folder, its answer read as `schema` says. */
async function askServer<T>(
  target: Extract<DataTarget, { kind: 'server' }>,
  route: string,
  schema: { safeParse(value: unknown): { success: true; data: T } | { success: false } },
  body?: unknown,
): Promise<T> {
  const response = await fetch(new URL(route, target.url), {
    method: body === undefined ? 'GET' : 'POST',
    headers: { ...authHeaders(target.token), 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const answer: unknown = await response.json().catch(() => null);
  const result = schema.safeParse(answer);
  if (!response.ok || !result.success) {
    const why = response.ok ? 'its answer was not what was asked' : errorMessageOf(answer);
    throw new CliError(`the server at ${target.url} could not export tasks: ${why}`);
  }
  return result.data;
}

/**
 * Exports through the server that holds the data folder (it has the worlds the tasks run in), a
 * page of tasks a request, as the route takes them, joined in the catalog's order.
 */
async function exportThroughServer(
  target: Extract<DataTarget, { kind: 'server' }>,
  options: TasksExportOptions,
): Promise<TaskExport> {
  const ids = options.task?.length
    ? options.task
    : (await askServer(target, '/v1/tasks', TaskListJson)).tasks.map((task) => task.id);
  const parts: TaskExport[] = [];
  for (let at = 0; at < ids.length; at += MAX_EXPORT_TASKS) {
    const tasks = ids.slice(at, at + MAX_EXPORT_TASKS);
    parts.push(
      await askServer(target, '/v1/tasks/export', TaskExportJson, {
        format: options.format,
        tasks,
      }),
    );
  }
  return joinTaskExports(options.format, parts);
}

/**
 * The tasks of the data folder's environment catalog, as its server serves them: through the server
 * when one holds the folder, else from the store with the same catalog (builtin tasks, then the
 * saved ones with their rebuilt worlds). A folder with no store yet has only the builtin tasks,
 * and none is made for them.
 */
async function catalogExport(options: TasksExportOptions): Promise<TaskExport> {
  const noStore =
    databaseUrlFromEnv() === undefined &&
    !existsSync(path.join(dataDirFor(options), PGLITE_SUBDIR));
  if (noStore)
    return exportTasks(onlyAsked(pickTasks(builtinTasks(), options.task)), options.format);
  const target = await connect(options);
  try {
    if (target.kind === 'server') return await exportThroughServer(target, options);
    const env = createDefaultEnvService(undefined, target.store);
    await env.ready;
    for (const skipped of env.restored.skipped)
      process.stderr.write(`not restored: ${skipped.id}: ${skipped.reason}\n`);
    return exportTasks(onlyAsked(catalogTasks(env, options.task)), options.format);
  } finally {
    await disconnect(target);
  }
}

function onlyAsked(chosen: CatalogTasks): ExportableTask[] {
  if (!chosen.ok) throw new CliError(`no task ${chosen.missing.join(', ')}`);
  return chosen.tasks;
}

export async function runTasksExport(options: TasksExportOptions): Promise<TasksExportReport> {
  const rejected: TasksExportReport['rejected'] = [];
  const ready = options.from?.length
    ? onlyAsked(pickTasks(await generatedTasks(options.from, rejected), options.task))
    : null;
  const result = ready === null ? await catalogExport(options) : exportTasks(ready, options.format);
  await writeTaskExport(result, options.out);
  // A task that has no Harbor form is named by the trajectory it came from, as a generated one is.
  const trajectoryOf = new Map(
    (ready ?? []).map(({ task }) => [task.id, task.provenance.trajectory ?? task.id]),
  );
  for (const entry of result.rejected)
    rejected.push({ trajectory: trajectoryOf.get(entry.task) ?? entry.task, reason: entry.reason });
  const report: TasksExportReport = {
    format: options.format,
    out: options.out,
    exported: result.exported,
    rejected,
  };
  if (options.json) process.stdout.write(`${JSON.stringify(report)}\n`);
  else process.stdout.write(exportSummary(result, options.out, rejected.length));
  return report;
}
