import {
  checkCurriculumSim,
  createCurriculumRunDeps,
  curriculumPolicy,
  exportCurriculumTasks,
  SimulatorError,
  type AppRouter,
} from '@terrarium/api';
import {
  CURRICULUM_TASK_SELECTIONS,
  TASK_FORMATS,
  type CurriculumTaskSelection,
  type GenerationStatsRecord,
  type TaskExport,
  type TaskFormat,
} from '@terrarium/curriculum';
import type { CurriculumRunRecord, Store } from '@terrarium/db';
import { CurriculumRunSettings, executeCurriculumRun } from '@terrarium/jobs';
import { createTRPCClient, httpLink } from '@trpc/client';
import { type Command, InvalidArgumentError, Option } from 'commander';
import { CliError, inCliWords, type FieldFlags } from '../cli-error';
import { serverFailure } from '../server-client';
import { connect, disconnect, type DataTarget, type GlobalOptions } from '../connect';
import { exportSummary, writeTaskExport } from './task-files';

export interface CurriculumRunOptions extends GlobalOptions {
  dataset: string;
  policy: string;
  sim?: string;
  generations: number;
  probes: number;
  scheduler: 'lineage' | 'band';
  maxDepth: number;
  seed: number;
  json?: boolean;
}

export interface CurriculumResumeOptions extends GlobalOptions {
  run: string;
  json?: boolean;
}

export interface CurriculumExportOptions extends GlobalOptions {
  run: string;
  format: TaskFormat;
  out: string;
  tasks: CurriculumTaskSelection;
  json?: boolean;
}

function positive(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1) throw new InvalidArgumentError('a whole number ≥ 1');
  return n;
}

function integer(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n)) throw new InvalidArgumentError('a whole number');
  return n;
}

export function registerCurriculumCommand(program: Command): void {
  const curriculum = program
    .command('curriculum')
    .description('Curricula that evolve verified tasks on executable worlds.');
  curriculum
    .command('run')
    .description(
      'Seed a lineage per task the dataset yields (gated), probe each with a policy, and mutate mastered tasks along the axes (execution length, scenario, skill, verifier, noise); every mutation passes the gates. The run is stored (resume it with `curriculum resume`), its rollouts are trajectories of dataset curriculum-<run>-rollouts; with a server on the data folder, the server plays it as a job.',
    )
    .requiredOption(
      '--dataset <name>',
      'dataset name or id (terminal/SWE trajectories), or `builtin` for the scratch tasks',
    )
    .addOption(
      new Option(
        '--policy <policy>',
        'who plays: scripted, onnx:PATH (a policy model folder, e.g. models/terrarium-policy-tiny) or openai:URL#MODEL',
      ).default('scripted'),
    )
    .option(
      '--sim <spec>',
      'also play every probe with this simulator standing in for the world (replay, retrieval, onnx:PATH, openai:URL#MODEL)',
    )
    .option('--generations <n>', 'generations to run', positive, 10)
    .option('--probes <n>', 'rollouts per task and generation (B)', positive, 8)
    .addOption(
      new Option('--scheduler <name>', 'lineage: advance above 6/8; band: keep 0.3-0.7')
        .choices(['lineage', 'band'])
        .default('lineage'),
    )
    .option('--max-depth <n>', 'mutations per lineage at most', positive, 15)
    .option('--seed <n>', 'seed of the policy and the mutators', integer, 0)
    .option(
      '--json',
      'print one {"generation","tasks","passRate","partialGroups",…} line per generation (with --sim also "passRateSimulated","passRateExecutable","divergentSteps")',
    )
    .action((_options: unknown, command: Command) =>
      runCurriculumCommand(command.optsWithGlobals()),
    );
  curriculum
    .command('resume')
    .description(
      'Continue a stored run from its last finished generation (after a crash, Ctrl-C, a cancel or a failure); with a server on the data folder, its workers play it.',
    )
    .requiredOption('--run <id>', 'the run id `curriculum run` printed')
    .option('--json', 'print one line per generation')
    .action((_options: unknown, command: Command) =>
      resumeCurriculumCommand(command.optsWithGlobals()),
    );
  curriculum
    .command('export')
    .description(
      "Write a run's tasks (as of its last generation: every tier of every lineage, or each lineage's current task) as JSONL or Harbor task folders, each with its run, lineage, tier and axis.",
    )
    .requiredOption('--run <id>', 'the run id `curriculum run` printed')
    .addOption(
      new Option('--format <format>', 'jsonl: one task per line; harbor: a task folder each')
        .choices(TASK_FORMATS)
        .makeOptionMandatory(),
    )
    .requiredOption(
      '--out <path>',
      'the JSONL file, or the folder that receives one folder per task',
    )
    .addOption(
      new Option('--tasks <which>', "all: every task the run made; current: each lineage's last")
        .choices(CURRICULUM_TASK_SELECTIONS)
        .default('all'),
    )
    .option('--json', 'print {"run","format","out","exported","rejected"}')
    .action(async (_options: unknown, command: Command) => {
      await exportCurriculumCommand(command.optsWithGlobals());
    });
}

/**
 * The fields per generation, and the simulated-vs-executable ones when a sim ran; first the
 * run's id, which `curriculum resume --run` takes.
 */
function line(runId: string, stats: GenerationStatsRecord): string {
  const { generation, tasks, passRate, partialGroups, meanTurns, meanTier, mutations, gap } = stats;
  return JSON.stringify({
    run: runId,
    generation,
    tasks,
    passRate,
    partialGroups,
    meanTurns,
    meanTier,
    mutations,
    ...(gap === null
      ? {}
      : {
          passRateSimulated: gap.passRateSimulated,
          passRateExecutable: gap.passRateExecutable,
          divergentSteps: gap.divergentSteps,
        }),
  });
}

function percent(value: number): string {
  return `${(value * 100).toFixed(1)}%`;
}

function text(stats: GenerationStatsRecord): string {
  const gap =
    stats.gap === null
      ? ''
      : `, simulated ${percent(stats.gap.passRateSimulated)} vs executable ${percent(stats.gap.passRateExecutable)}, ${stats.gap.divergentSteps}/${stats.gap.steps} steps diverged`;
  return `generation ${stats.generation}: ${stats.tasks} tasks, pass rate ${percent(stats.passRate)}, partially solved groups ${percent(stats.partialGroups)}, mean tier ${stats.meanTier.toFixed(2)}, mutations ${stats.mutations.accepted} accepted / ${stats.mutations.rejected} rejected${gap}`;
}

function printer(json: boolean | undefined, runId: string): (stats: GenerationStatsRecord) => void {
  return (stats) => process.stdout.write(`${json ? line(runId, stats) : text(stats)}\n`);
}

function settingsFrom(options: CurriculumRunOptions): CurriculumRunSettings {
  return CurriculumRunSettings.parse({
    policy: options.policy,
    sim: options.sim ?? null,
    scheduler: options.scheduler,
    probes: options.probes,
    maxDepth: options.maxDepth,
    seed: options.seed,
  });
}

/** The curriculum procedures' fields, as this command's flags. */
const CURRICULUM_FLAGS: FieldFlags = {
  runId: '--run',
  dataset: '--dataset',
  policy: '--policy',
  sim: '--sim',
  generations: '--generations',
  probes: '--probes',
  scheduler: '--scheduler',
  maxDepth: '--max-depth',
  seed: '--seed',
  format: '--format',
  tasks: '--tasks',
};

function cliErrorOf(error: unknown): unknown {
  return error instanceof SimulatorError
    ? new CliError(inCliWords(error.message, CURRICULUM_FLAGS))
    : error;
}

async function playHere(
  store: Store,
  run: CurriculumRunRecord,
  json: boolean | undefined,
): Promise<void> {
  const deps = createCurriculumRunDeps(store, { anyOnnxPath: true });
  const print = printer(json, run.id);
  if (!json) {
    const seeds = await deps.seedsFor(run).catch((error: unknown) => {
      throw cliErrorOf(error);
    });
    process.stdout.write(
      `run ${run.id}: ${seeds.tasks.length} seed task(s), ${seeds.rejected.length} trajectory(ies) without a task\n`,
    );
  }
  const outcome = await executeCurriculumRun(store, run.id, deps, { onGeneration: print });
  const final = await store.getCurriculumRun(run.id);
  if (outcome.stoppedBy === 'failed') throw new CliError(final?.error ?? 'the run failed');
  if (!json && final !== null) {
    process.stdout.write(
      `run ${final.id} ${final.status} after ${final.generationsDone} generation(s); rollouts in dataset ${final.rolloutsDataset}\n`,
    );
  }
}

type Client = ReturnType<typeof createTRPCClient<AppRouter>>;

function trpcClient(target: Extract<DataTarget, { kind: 'server' }>): Client {
  return createTRPCClient<AppRouter>({
    links: [
      httpLink({
        url: `${target.url}/trpc`,
        headers: { authorization: `Bearer ${target.token}` },
      }),
    ],
  });
}

/** A refusal by the server, said as the CLI says its own errors. */
function refusedBy<T>(url: string, promise: Promise<T>): Promise<T> {
  return promise.catch((error: unknown) => {
    throw serverFailure(error, url, '', CURRICULUM_FLAGS);
  });
}

/** With `serve` on the folder: the server's workers play the run; this polls its generations. */
async function playOnServer(
  trpc: Client,
  url: string,
  options: CurriculumRunOptions,
): Promise<void> {
  const { policy, sim, scheduler, probes, maxDepth, seed } = settingsFrom(options);
  const call = <T>(promise: Promise<T>) => refusedBy(url, promise);
  const run = await call(
    trpc.curriculum.start.mutate({
      dataset: options.dataset,
      generations: options.generations,
      policy,
      sim,
      scheduler,
      probes,
      maxDepth,
      seed,
    }),
  );
  if (!options.json) process.stdout.write(`run ${run.id} queued on ${url}\n`);
  await followOnServer(trpc, url, run.id, options.json, 0);
}

/** Prints the server's run's generations after the first `printed` as they come, to its end. */
async function followOnServer(
  trpc: Client,
  url: string,
  runId: string,
  json: boolean | undefined,
  printed: number,
): Promise<void> {
  const print = printer(json, runId);
  for (let shown = printed; ;) {
    const current = await refusedBy(url, trpc.curriculum.get.query({ runId }));
    for (const stats of current.generations.slice(shown)) print(stats);
    shown = current.generations.length;
    if (current.run.status === 'failed')
      throw new CliError(current.run.error ?? `run ${runId} failed`);
    if (current.run.status === 'done' || current.run.status === 'canceled') return;
    await new Promise((resolve) => setTimeout(resolve, 300));
  }
}

/** `terrarium curriculum run`: stores a run and plays it, printing per-generation figures. */
export async function runCurriculumCommand(options: CurriculumRunOptions): Promise<void> {
  try {
    await curriculumPolicy(options.policy, { anyOnnxPath: true });
    if (options.sim !== undefined) checkCurriculumSim(options.sim, options.dataset);
  } catch (error) {
    throw cliErrorOf(error);
  }
  const target = await connect(options);
  try {
    if (target.kind === 'server') {
      await playOnServer(trpcClient(target), target.url, options);
      return;
    }
    const run = await target.store.createCurriculumRun({
      dataset: options.dataset,
      settings: settingsFrom(options),
      generations: options.generations,
    });
    await playHere(target.store, run, options.json);
  } finally {
    await disconnect(target);
  }
}

/** `terrarium curriculum resume`: continues a stored run from its checkpoint. */
export async function resumeCurriculumCommand(options: CurriculumResumeOptions): Promise<void> {
  const target = await connect(options);
  try {
    if (target.kind === 'server') {
      // The server's workers go on with it (walk 43: this refused, and nothing else could).
      const trpc = trpcClient(target);
      const before = await refusedBy(target.url, trpc.curriculum.get.query({ runId: options.run }));
      if (before.run.status === 'queued' || before.run.status === 'running') {
        if (!options.json)
          process.stdout.write(`run ${before.run.id} is ${before.run.status} on ${target.url}\n`);
      } else {
        await refusedBy(target.url, trpc.curriculum.resume.mutate({ runId: options.run }));
        if (!options.json)
          process.stdout.write(
            `run ${before.run.id} queued again on ${target.url} after generation ${before.run.generationsDone} of ${before.run.generationsTotal}\n`,
          );
      }
      await followOnServer(
        trpc,
        target.url,
        before.run.id,
        options.json,
        before.generations.length,
      );
      return;
    }
    const run = await target.store.getCurriculumRun(options.run);
    if (run === null) throw new CliError(`no curriculum run ${options.run}`);
    // A canceled or failed run goes on too; a finished one has nothing left.
    if (run.status === 'done') throw new CliError(`run ${run.id} is done; nothing is left to play`);
    if (run.status === 'canceled' || run.status === 'failed')
      await target.store.setCurriculumRunStatus(run.id, 'queued', null, [run.status]);
    if (!options.json)
      process.stdout.write(
        `resuming run ${run.id} after generation ${run.generationsDone} of ${run.generationsTotal}\n`,
      );
    await playHere(target.store, run, options.json);
  } finally {
    await disconnect(target);
  }
}

/** `terrarium curriculum export`: a run's tasks to disk, through the server when one owns the data. */
export async function exportCurriculumCommand(
  options: CurriculumExportOptions,
): Promise<TaskExport> {
  const target = await connect(options);
  let result: TaskExport;
  try {
    result =
      target.kind === 'server'
        ? await refusedBy(
            target.url,
            trpcClient(target).curriculum.exportTasks.query({
              runId: options.run,
              format: options.format,
              tasks: options.tasks,
            }),
          )
        : await exportCurriculumTasks(
            target.store,
            options.run,
            options.format,
            options.tasks,
          ).catch((error: unknown) => {
            throw cliErrorOf(error);
          });
  } finally {
    await disconnect(target);
  }
  await writeTaskExport(result, options.out);
  if (options.json) {
    const { exported, rejected } = result;
    process.stdout.write(
      `${JSON.stringify({ run: options.run, format: result.format, out: options.out, exported, rejected })}\n`,
    );
  } else process.stdout.write(exportSummary(result, options.out, result.rejected.length));
  return result;
}
