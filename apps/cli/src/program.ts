import { Command, InvalidArgumentError, Option } from 'commander';
import { TERRARIUM_VERSION } from '@terrarium/api';
import { SOURCE_FORMATS } from '@terrarium/schema';
import {
  runBenchBuild,
  runBenchCancel,
  runBenchDelete,
  runBenchDeleteRun,
  runBenchResume,
  runBenchRetry,
  runBenchExport,
  runBenchResults,
  runBenchRuns,
  runBenchImport,
  runBenchLeaderboard,
  runBenchList,
  runBenchRun,
} from './commands/bench-command';
import { runDatasets, runDatasetsDelete } from './commands/datasets-command';
import { runImport } from './commands/import-command';
import { DEFAULT_PORT, runServe } from './commands/serve-command';
import { MAX_STEPS_HELP, runSimulate } from './commands/simulate-command';
import { registerUsersCommand } from './commands/users-command';
import { registerLabelsCommand } from './commands/labels-command';
import { registerWorkerCommand } from './commands/worker';
import { registerTasksCommand } from './commands/tasks-command';
import { registerCurriculumCommand } from './commands/curriculum-command';
import { runWorldsBuild } from './commands/worlds-command';

function parsePort(value: string): number {
  const port = Number(value);
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    throw new InvalidArgumentError('a port is a whole number from 0 to 65535 (0: any free port)');
  }
  return port;
}

function parseInteger(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n)) throw new InvalidArgumentError('a whole number');
  return n;
}

function parseFraction(value: string): number {
  const n = Number(value);
  if (!(n >= 0 && n <= 1)) throw new InvalidArgumentError('a number from 0 to 1');
  return n;
}

function collect(value: string, previous: string[] = []): string[] {
  return [...previous, value];
}

function parsePositive(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1) throw new InvalidArgumentError('a whole number from 1 up');
  return n;
}

function parseNumber(value: string): number {
  const n = Number(value);
  if (value.trim() === '' || !Number.isFinite(n)) throw new InvalidArgumentError('a number');
  return n;
}

/** `--workers` of the commands that start or go on with a bench run and follow it. */
function workersOption(): Option {
  return new Option(
    '--workers <n>',
    'chunk jobs this process runs at once (0: leave them to `terrarium worker`)',
  )
    .argParser(parseInteger)
    .default(2);
}

/** `--json` of the commands that print a run's report as `bench run` does. */
function runJsonOption(): Option {
  return new Option('--json', 'print {"bench","sims":[…]} as JSON');
}

export function buildProgram(): Command {
  const program = new Command('terrarium')
    .description('Import, store, search and replay agent trajectories.')
    .version(TERRARIUM_VERSION)
    .option(
      '--data-dir <dir>',
      'embedded data folder (default: $TERRARIUM_DATA_DIR, else ./.terrarium); DATABASE_URL=postgres://… selects PostgreSQL instead',
    )
    .showHelpAfterError();

  program
    .command('import')
    .description(
      'Import trajectory files or folders (recursed) into a dataset. Exit code: 0 all imported, 2 some records quarantined or files not read, 1 nothing imported.',
    )
    .argument('[paths...]', 'files or folders')
    .addOption(
      new Option('--format <format>', 'skip detection: read every file as this format').choices(
        SOURCE_FORMATS,
      ),
    )
    .option('--dataset <name>', 'dataset name (default: base name of the first path)')
    .option('--json', 'print one JSON report on stdout instead of text and a progress bar')
    .option(
      '--resume',
      'continue the imports a crash or a kill interrupted, from their last stored group (an interrupted import of the same files also continues by itself)',
    )
    .action((paths: string[], _options: unknown, command: Command) =>
      runImport(paths, command.optsWithGlobals()),
    );

  const datasets = program
    .command('datasets')
    .description('List datasets (`datasets delete NAME` deletes one).')
    .option('--json', 'print a JSON array')
    .action((_options: unknown, command: Command) => runDatasets(command.optsWithGlobals()));
  datasets
    .command('delete')
    .description(
      'Delete a dataset with its trajectories and search index; benches built from it keep their items.',
    )
    .argument('<dataset>', 'dataset name (or id)')
    .option('--yes', 'delete it (without: only say what would be deleted)')
    .option('--json', 'print {"deleted","trajectories"}')
    .action((dataset: string, _options: unknown, command: Command) =>
      runDatasetsDelete(dataset, command.optsWithGlobals()),
    );

  program
    .command('serve')
    .description('Serve the workbench and its API on this machine.')
    .option('--host <host>', 'interface to listen on', '127.0.0.1')
    .option('--port <port>', `port (0: any free port)`, parsePort, DEFAULT_PORT)
    .option('--demo', 'load the bundled demo datasets when the store is empty')
    .option(
      '--allowed-host <name>',
      'also answer requests naming this host (repeatable), e.g. behind a proxy',
      collect,
    )
    .option(
      '--prompts <dir>',
      'a folder laid out like the official AgentWorldBench prompts/: speak to endpoints and judges as the official script does',
    )
    .action((_options: unknown, command: Command) => runServe(command.optsWithGlobals()));

  program
    .command('simulate')
    .description(
      "Run a simulator over a stored trajectory's transitions (open loop) and score each prediction against the real observation.",
    )
    .requiredOption('--dataset <name>', 'dataset name or id')
    .option('--trajectory <id>', "trajectory id or the source's id (default: the dataset's first)")
    .requiredOption('--sim <spec>', 'replay, retrieval, onnx:PATH or openai:URL#MODEL')
    .option('--max-steps <n>', MAX_STEPS_HELP, parsePositive)
    .option('--json', 'print one JSON object instead of a table')
    .option(
      '--prompts <dir>',
      'a folder laid out like the official AgentWorldBench prompts/: speak to endpoints and judges as the official script does',
    )
    .action((_options: unknown, command: Command) => runSimulate(command.optsWithGlobals()));

  registerWorkerCommand(program);
  registerTasksCommand(program);
  registerCurriculumCommand(program);
  registerUsersCommand(program);
  registerLabelsCommand(program);
  const bench = program
    .command('bench')
    .description('Benches: frozen items sampled from datasets, run against simulators and scored.');

  bench
    .command('build')
    .description('Build a bench from stored datasets (a new version when the name exists).')
    .requiredOption('--name <name>', 'bench name')
    .requiredOption('--dataset <name>', 'dataset name or id (repeat for more)', collect)
    .option(
      '--sampling <rule>',
      'per trajectory: agentworld (first, 3 middle, last turn), all, or random:N (N turns of each trajectory)',
      'agentworld',
    )
    .option('--seed <n>', 'seed for random sampling and the dev split', parseInteger, 0)
    .option(
      '--dev-fraction <f>',
      'share of trajectories held out as the dev split',
      parseFraction,
      0,
    )
    .option(
      '--max-per-task <n>',
      'at most this many items per task stratum (a benchmark and domain, e.g. tau2-bench/retail: the "task" of leaderboards), seeded choice',
      parsePositive,
    )
    .option('--json', 'print the manifest as JSON')
    .action((_options: unknown, command: Command) => runBenchBuild(command.optsWithGlobals()));

  bench
    .command('list')
    .description('List benches and their versions.')
    .option('--json', 'print a JSON array')
    .action((_options: unknown, command: Command) => runBenchList(command.optsWithGlobals()));

  bench
    .command('import')
    .description(
      'Import an AgentWorldBench JSONL file as a bench. Exit code 2 when some rows were skipped.',
    )
    .argument(
      '<file>',
      'AgentWorldBench JSONL ({task,id,prompt,response,current_prompt,…}), or a folder of *_test.jsonl',
    )
    .requiredOption('--name <name>', 'bench name')
    .option(
      '--server <url>',
      'upload to this running Terrarium (token: TERRARIUM_TOKEN, else the --data-dir token file)',
    )
    .option('--json', 'print the result as JSON')
    .action((file: string, _options: unknown, command: Command) =>
      runBenchImport(file, command.optsWithGlobals()),
    );

  bench
    .command('export')
    .description('Write a bench as AgentWorldBench JSONL, or SFT data that keeps the bench out.')
    .requiredOption('--name <name>', 'bench name')
    .option('--bench-version <n>', 'bench version (default: latest)', parsePositive)
    .addOption(
      new Option('--format <format>', 'output format')
        .choices(['agentworldbench', 'sft'])
        .default('agentworldbench'),
    )
    .requiredOption('--out <file>', 'output file')
    .option('--dataset <name>', 'sft: dataset to draw training data from (repeat)', collect)
    .option('--reasoning', 'sft: keep recorded reasoning as <think>…</think>')
    .option('--json', 'print a JSON summary')
    .action((_options: unknown, command: Command) => runBenchExport(command.optsWithGlobals()));

  bench
    .command('runs')
    .description('List bench runs, newest first, with their ids.')
    .option('--bench <name>', 'only the runs of this bench')
    .option('--json', 'print a JSON array')
    .action((_options: unknown, command: Command) => runBenchRuns(command.optsWithGlobals()));

  bench
    .command('results')
    .description(
      "Write a run's results as JSON lines: per item and simulator, the prediction and its scores (0-1).",
    )
    .argument('<run>', 'run id (printed by `bench run`, listed by `bench runs`)')
    .requiredOption('--out <file>', 'output file')
    .option(
      '--history',
      "add each item's earlier turns (what /v1/reward takes as `history`); repeats the trajectory per item",
    )
    .option('--json', 'print a JSON summary')
    .action((runId: string, _options: unknown, command: Command) =>
      runBenchResults(runId, command.optsWithGlobals()),
    );

  bench
    .command('leaderboard')
    .description(
      "A run's leaderboard for one score: mean, 95% bootstrap interval, n and missing per simulator and task (0-100), as the run page shows it.",
    )
    .argument('<run>', 'run id')
    .option(
      '--score <source:metric>',
      "e.g. rule:content, judge:overall (default: the run page's, its Overall or, when its judge gave no verdict, rule:content)",
    )
    .option('--json', 'print {"run","score","intervals","cells":[…]} as JSON')
    .action((runId: string, _options: unknown, command: Command) =>
      runBenchLeaderboard(runId, command.optsWithGlobals()),
    );

  bench
    .command('cancel')
    .description('Cancel a queued or running run; what it recorded stays (`bench resume` goes on).')
    .argument('<run>', 'run id')
    .option('--json', 'print the run as JSON')
    .action((runId: string, _options: unknown, command: Command) =>
      runBenchCancel(runId, command.optsWithGlobals()),
    );

  bench
    .command('resume')
    .description(
      'Take a canceled run up where it stopped (its unrecorded units) and print its scores as `bench run` does.',
    )
    .argument('<run>', 'run id')
    .addOption(workersOption())
    .addOption(runJsonOption())
    .action((runId: string, _options: unknown, command: Command) =>
      runBenchResume(runId, command.optsWithGlobals()),
    );

  bench
    .command('retry')
    .description(
      'Do again what failed in a run that has ended: its judge asked again where a verdict is missing, its failed units predicted again (e.g. once the endpoint answers); then print its scores as `bench run` does.',
    )
    .argument('<run>', 'run id')
    .addOption(workersOption())
    .addOption(runJsonOption())
    .action((runId: string, _options: unknown, command: Command) =>
      runBenchRetry(runId, command.optsWithGlobals()),
    );

  bench
    .command('delete-run')
    .description('Delete a run that is not going, with its predictions and scores.')
    .argument('<run>', 'run id')
    .option('--yes', 'delete it (without: only say what would be deleted)')
    .option('--json', 'print {"deleted","bench","benchVersion","units"}')
    .action((runId: string, _options: unknown, command: Command) =>
      runBenchDeleteRun(runId, command.optsWithGlobals()),
    );

  bench
    .command('delete')
    .description(
      'Delete one bench version with its items and runs; its other versions and its datasets stay.',
    )
    .requiredOption('--name <name>', 'bench name')
    .requiredOption('--bench-version <n>', 'the version to delete', parsePositive)
    .option('--yes', 'delete it (without: only say what would be deleted)')
    .option('--json', 'print {"name","version","items","runs"}')
    .action((_options: unknown, command: Command) => runBenchDelete(command.optsWithGlobals()));

  bench
    .command('run')
    .description('Run simulators over a bench (a background job) and print their scores (0-100).')
    .requiredOption('--bench <name>', 'bench name')
    .option('--bench-version <n>', 'bench version (default: latest)', parsePositive)
    .requiredOption(
      '--sim <spec>',
      'replay, retrieval, onnx:PATH or openai:URL#MODEL (repeat)',
      collect,
    )
    .option('--judge <spec>', 'judge model, openai:URL#MODEL')
    .option('--judge-repeats <k>', 'judgings per item (1-10)', parsePositive, 1)
    .option('--judge-temperature <t>', "the judge's sampling temperature (0-2)", parseNumber, 0)
    .addOption(
      new Option(
        '--judge-mode <mode>',
        'score: 5 dimensions; turing: which is real; pairwise: the first --sim against each other one',
      )
        .choices(['score', 'turing', 'pairwise'])
        .default('score'),
    )
    .option(
      '--mode <mode>',
      'open (real history) or closed:K (last K observations simulated)',
      'open',
    )
    .option('--split <split>', 'test or dev', 'test')
    .addOption(workersOption())
    .addOption(runJsonOption())
    .option(
      '--prompts <dir>',
      'a folder laid out like the official AgentWorldBench prompts/: speak to endpoints and judges as the official script does',
    )
    .action((_options: unknown, command: Command) => runBenchRun(command.optsWithGlobals()));

  const worlds = program
    .command('worlds')
    .description('Executable worlds rebuilt from trajectories.');
  worlds
    .command('build')
    .description(
      'Reconstruct a world per trajectory of a dataset, replay its actions and count recorded observations reproduced exactly, answered by a fallback, or mismatched.',
    )
    .requiredOption('--dataset <name>', 'dataset name or id')
    .option('--no-pool', 'one reconstruction per trajectory (default: pool episodes of one image)')
    .option(
      '--mismatches <n>',
      'list up to n mismatches with both texts in --json',
      parseInteger,
      0,
    )
    .option(
      '--sql-dump <file>',
      'SQL datasets: the MySQL dump the episodes ran on (InterCode: data/sql/spider/ic_spider_dbs.sql)',
    )
    .option(
      '--sql-tasks <file>',
      "SQL datasets: a Spider task file naming each question's database (repeatable)",
      (value: string, previous: string[] = []) => [...previous, value],
    )
    .option(
      '--json',
      'print {"dataset","worlds","transitions","exact","fallback","mismatch","byCommand"}',
    )
    .action((_options: unknown, command: Command) => runWorldsBuild(command.optsWithGlobals()));

  return program;
}
