import { Command, InvalidArgumentError } from 'commander';
import { createBenchRunDeps } from '@terrarium/api';
import { openStore } from '@terrarium/db';
import { createJobQueue, startWorker } from '@terrarium/jobs';
import { databaseUrlFromEnv } from '../connect';

export interface WorkerCommandOptions {
  concurrency?: number;
}

/** Exit code when the command cannot run where it was started (no shared database). */
export const WORKER_NEEDS_DATABASE_EXIT = 2;

function parseConcurrency(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1) throw new InvalidArgumentError('a whole number from 1 up');
  return n;
}

export function registerWorkerCommand(program: Command): void {
  program
    .command('worker')
    .description(
      'Take bench-run jobs from the shared queue until SIGINT/SIGTERM. Needs DATABASE_URL=postgres://…; start any number, on any machine.',
    )
    .option(
      '--concurrency <n>',
      'chunk jobs run at once (endpoint limits still apply)',
      parseConcurrency,
      2,
    )
    .action((options: WorkerCommandOptions) => runWorker(options));
}

/**
 * Runs until SIGINT or SIGTERM, then stops gracefully: takes no new jobs, lets in-flight
 * predictions finish (up to 10 s), and hands unfinished chunks back to the queue for another
 * worker. A second signal exits at once; the queue retries what was held.
 */
export async function runWorker(options: WorkerCommandOptions): Promise<void> {
  const databaseUrl = databaseUrlFromEnv();
  if (!databaseUrl) {
    process.stderr.write(
      'terrarium: `terrarium worker` needs DATABASE_URL=postgres://… . The embedded store (PGlite) ' +
        'lives in one process and cannot be shared with worker processes; `terrarium serve` runs ' +
        'the workers for it itself.\n',
    );
    process.exitCode = WORKER_NEEDS_DATABASE_EXIT;
    return;
  }
  const concurrency = options.concurrency ?? 2;
  const store = await openStore({ databaseUrl });
  const queue = await createJobQueue(store).catch(async (error: unknown) => {
    await store.close();
    throw error;
  });
  const deps = createBenchRunDeps(store, { anyOnnxPath: true });
  const worker = await startWorker({
    queue,
    deps,
    concurrency,
    onChunk: (chunk, outcome) =>
      process.stderr.write(
        `run ${chunk.runId} ${chunk.sim}: ${outcome.recorded} recorded, ${outcome.failed} failed` +
          `${outcome.stoppedBy ? `, stopped (${outcome.stoppedBy})` : ''}\n`,
      ),
  });
  process.stderr.write(
    `worker ${process.pid}: taking bench-run jobs, ${concurrency} at a time; Ctrl-C to stop\n`,
  );

  await new Promise<void>((resolve) => {
    let stopping = false;
    const onSignal = (signal: NodeJS.Signals) => {
      if (stopping) {
        process.stderr.write(`${signal} again: exiting now; held chunks return to the queue\n`);
        process.exit(1);
      }
      stopping = true;
      process.stderr.write(`${signal}: finishing in-flight items, then stopping\n`);
      void (async () => {
        try {
          await worker.stop();
          await queue.stop();
          await deps.close?.();
        } finally {
          await store.close();
          process.off('SIGINT', onSignal);
          process.off('SIGTERM', onSignal);
          resolve();
        }
      })();
    };
    process.on('SIGINT', onSignal);
    process.on('SIGTERM', onSignal);
  });
}
