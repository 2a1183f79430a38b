import { Command, InvalidArgumentError, Option } from 'commander';
import { TERRARIUM_VERSION } from '@terrarium/api';
import { SOURCE_FORMATS } from '@terrarium/schema';
import { runDatasets } from './commands/datasets-command';
import { runImport } from './commands/import-command';
import { DEFAULT_PORT, runServe } from './commands/serve-command';
import { runSimulate } from './commands/simulate-command';

function parsePort(value: string): number {
  const port = Number(value);
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    throw new InvalidArgumentError('a port is a whole number from 0 to 65535 (0: any free port)');
  }
  return port;
}

function parsePositive(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1) throw new InvalidArgumentError('a whole number from 1 up');
  return n;
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
      'Import trajectory files or folders (recursed) into a dataset. Exit code: 0 all imported, 2 some records quarantined, 1 nothing imported.',
    )
    .argument('<paths...>', 'files or folders')
    .addOption(
      new Option('--format <format>', 'skip detection: read every file as this format').choices(
        SOURCE_FORMATS,
      ),
    )
    .option('--dataset <name>', 'dataset name (default: base name of the first path)')
    .option('--json', 'print one JSON report on stdout instead of text and a progress bar')
    .action((paths: string[], _options: unknown, command: Command) =>
      runImport(paths, command.optsWithGlobals()),
    );

  program
    .command('datasets')
    .description('List datasets.')
    .option('--json', 'print a JSON array')
    .action((_options: unknown, command: Command) => runDatasets(command.optsWithGlobals()));

  program
    .command('serve')
    .description('Serve the workbench and its API on this machine.')
    .option('--host <host>', 'interface to listen on', '127.0.0.1')
    .option('--port <port>', `port (0: any free port)`, parsePort, DEFAULT_PORT)
    .option('--demo', 'load the bundled demo datasets when the store is empty')
    .action((_options: unknown, command: Command) => runServe(command.optsWithGlobals()));

  program
    .command('simulate')
    .description(
      "Run a simulator over a stored trajectory's transitions (open loop) and score each prediction against the real observation.",
    )
    .requiredOption('--dataset <name>', 'dataset name or id')
    .option('--trajectory <id>', "trajectory id or the source's id (default: the dataset's first)")
    .requiredOption('--sim <spec>', 'replay, retrieval, onnx:PATH or openai:URL#MODEL')
    .option('--max-steps <n>', 'simulate at most this many transitions', parsePositive)
    .option('--json', 'print one JSON object instead of a table')
    .action((_options: unknown, command: Command) => runSimulate(command.optsWithGlobals()));

  return program;
}
