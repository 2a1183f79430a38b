import { createReadStream } from 'node:fs';
import { readdir, stat } from 'node:fs/promises';
import path from 'node:path';
import {
  BUILTIN_TASKS,
  exportTasks,
  SCRATCH_WORLD,
  Task,
  taskFromTerminalTrajectory,
  type ExportableTask,
} from '@terrarium/curriculum';
import { buildTerminalWorld, reconstructWorkspace } from '@terrarium/executable-worlds';
import { readTrajectories } from '@terrarium/formats';
import { type Command, Option } from 'commander';
import { CliError } from '../cli-error';
import { exportSummary, writeTaskExport } from './task-files';

export interface TasksExportOptions {
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
      'Export tasks that pass their gates: the builtin ones, or tasks generated from trajectory files (--from), as JSONL or Harbor task folders.',
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
    .action(async (options: TasksExportOptions) => {
      await runTasksExport(options);
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

export async function runTasksExport(options: TasksExportOptions): Promise<TasksExportReport> {
  const rejected: TasksExportReport['rejected'] = [];
  let ready = options.from?.length ? await generatedTasks(options.from, rejected) : builtinTasks();
  if (options.task?.length) {
    const wanted = new Set(options.task);
    ready = ready.filter(({ task }) => wanted.has(task.id));
    const missing = [...wanted].filter((id) => !ready.some(({ task }) => task.id === id));
    if (missing.length > 0) throw new CliError(`no task ${missing.join(', ')}`);
  }
  const result = exportTasks(ready, options.format);
  await writeTaskExport(result, options.out);
  // A task that has no Harbor form is named by the trajectory it came from, as a generated one is.
  const trajectoryOf = new Map(
    ready.map(({ task }) => [task.id, task.provenance.trajectory ?? task.id]),
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
