import { createReadStream } from 'node:fs';
import { chmod, mkdir, readdir, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import {
  BUILTIN_TASKS,
  exportHarborTask,
  isTerminalWorld,
  SCRATCH_WORLD,
  Task,
  taskFromTerminalTrajectory,
  taskJsonLine,
  toolsFor,
  type ExportedFile,
} from '@terrarium/curriculum';
import {
  buildTerminalWorld,
  reconstructWorkspace,
  type TerminalWorld,
} from '@terrarium/executable-worlds';
import { readTrajectories } from '@terrarium/formats';
import { type Command, Option } from 'commander';
import { CliError } from '../cli-error';

export interface TasksExportOptions {
  format: 'jsonl' | 'harbor';
  out: string;
  from?: string[];
  task?: string[];
  json?: boolean;
}

interface ReadyTask {
  task: Task;
  /** A fresh world in the task's initial state. */
  world: () => TerminalWorld;
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
): Promise<ReadyTask[]> {
  const ready: ReadyTask[] = [];
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

function builtinTasks(): ReadyTask[] {
  return BUILTIN_TASKS.map((input) => {
    const task = Task.parse(input);
    return {
      task,
      world: () => {
        const world = SCRATCH_WORLD.create(task.world.params, 0);
        if (!isTerminalWorld(world)) throw new Error('the scratch world is a terminal world');
        return world;
      },
    };
  });
}

async function writeFolder(folder: string, files: ExportedFile[]): Promise<void> {
  for (const file of files) {
    const target = path.join(folder, file.path);
    await mkdir(path.dirname(target), { recursive: true });
    await writeFile(target, file.content);
    if (file.executable) await chmod(target, 0o755);
  }
}

/** Task ids become folder names; keep them portable. */
function folderName(id: string): string {
  return id.replace(/[^A-Za-z0-9._-]+/g, '-');
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
  const exported: string[] = [];
  if (options.format === 'jsonl') {
    const lines = ready.map(({ task, world }) => taskJsonLine(task, toolsFor(world())));
    await mkdir(path.dirname(path.resolve(options.out)), { recursive: true });
    await writeFile(options.out, lines.map((line) => `${line}\n`).join(''));
    exported.push(...ready.map(({ task }) => task.id));
  } else {
    for (const { task, world } of ready) {
      const folder = exportHarborTask(task, world());
      if (!folder.ok) {
        rejected.push({ trajectory: task.provenance.trajectory ?? task.id, reason: folder.reason });
        continue;
      }
      await writeFolder(path.join(options.out, folderName(task.id)), folder.files);
      exported.push(task.id);
    }
  }
  const report: TasksExportReport = {
    format: options.format,
    out: options.out,
    exported,
    rejected,
  };
  if (options.json) process.stdout.write(`${JSON.stringify(report)}\n`);
  else {
    process.stdout.write(
      `exported ${exported.length} task(s) to ${options.out} as ${options.format}\n`,
    );
    if (rejected.length > 0)
      process.stdout.write(`not exported: ${rejected.length} (see --json for each reason)\n`);
  }
  return report;
}
