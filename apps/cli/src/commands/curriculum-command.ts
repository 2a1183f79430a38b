import { findDataset, loadDataset } from '@terrarium/api';
import {
  builtinSeedTasks,
  runCurriculum,
  scriptedRunOptions,
  seedTasksFromTrajectories,
  type GenerationStats,
  type SeedTasks,
} from '@terrarium/curriculum';
import { type Command, InvalidArgumentError, Option } from 'commander';
import { CliError } from '../cli-error';
import { connect, disconnect, type GlobalOptions } from '../connect';

export interface CurriculumRunOptions extends GlobalOptions {
  dataset: string;
  policy: string;
  generations: number;
  probes: number;
  scheduler: 'lineage' | 'band';
  maxDepth: number;
  seed: number;
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
      'Seed a lineage per task the dataset yields (gated), probe each with a policy, and mutate mastered tasks along the axes (execution length, scenario, skill, verifier); every mutation passes the gates.',
    )
    .requiredOption(
      '--dataset <name>',
      'dataset name or id (terminal/SWE trajectories), or `builtin` for the scratch tasks',
    )
    .addOption(
      new Option('--policy <policy>', 'who plays the tasks (only `scripted` so far)').default(
        'scripted',
      ),
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
      'print one {"generation","tasks","passRate","partialGroups"} line per generation',
    )
    .action((_options: unknown, command: Command) =>
      runCurriculumCommand(command.optsWithGlobals()),
    );
}

async function seedsFor(options: CurriculumRunOptions): Promise<SeedTasks> {
  if (options.dataset === 'builtin') return builtinSeedTasks();
  const target = await connect(options);
  try {
    if (target.kind === 'server')
      throw new CliError(
        `a server owns ${target.dataDir}; stop it or pass a --data-dir the server does not hold`,
      );
    const dataset = await findDataset(target.store, options.dataset, '--dataset');
    return await seedTasksFromTrajectories(await loadDataset(target.store, dataset.id));
  } finally {
    await disconnect(target);
  }
}

function line(stats: GenerationStats): string {
  const { generation, tasks, passRate, partialGroups, meanTurns, meanTier, mutations } = stats;
  return JSON.stringify({
    generation,
    tasks,
    passRate,
    partialGroups,
    meanTurns,
    meanTier,
    mutations,
  });
}

/** `terrarium curriculum run`: plays a curriculum and prints per-generation figures. */
export async function runCurriculumCommand(options: CurriculumRunOptions): Promise<void> {
  if (options.policy !== 'scripted')
    throw new CliError(`policy ${options.policy} is not available yet; use --policy scripted`);
  const seeds = await seedsFor(options);
  if (seeds.tasks.length === 0)
    throw new CliError(
      `no task of ${options.dataset} passes its gates (${seeds.rejected.length} rejected)`,
    );
  if (!options.json)
    process.stdout.write(
      `${seeds.tasks.length} seed task(s), ${seeds.rejected.length} trajectory(ies) without a task\n`,
    );
  const result = await runCurriculum(seeds.tasks, options.generations, {
    ...scriptedRunOptions(seeds, options),
    onGeneration: (stats) => {
      process.stdout.write(
        options.json
          ? `${line(stats)}\n`
          : `generation ${stats.generation}: ${stats.tasks} tasks, pass rate ${(stats.passRate * 100).toFixed(1)}%, partially solved groups ${(stats.partialGroups * 100).toFixed(1)}%, mean tier ${stats.meanTier.toFixed(2)}, mutations ${stats.mutations.accepted} accepted / ${stats.mutations.rejected} rejected\n`,
      );
    },
  });
  if (!options.json) {
    for (const lineage of result.lineages) {
      const tiers = lineage.nodes.map((node) => node.axis ?? 'seed').join(' → ');
      process.stdout.write(`${lineage.id}: ${tiers}${lineage.capped ? ' (capped)' : ''}\n`);
    }
  }
}
