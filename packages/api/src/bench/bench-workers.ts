import type { Store } from '@terrarium/db';
import {
  createJobQueue,
  resumeRuns,
  startWorker,
  type JobQueue,
  type JobQueueOptions,
} from '@terrarium/jobs';
import { checkSimulator } from '../simulate/resolve-simulator';
import { endpointAllowlistFromEnv, parseSimSpec } from '../simulate/sim-spec';
import type { BenchRunner } from './bench-service';
import { createBenchRunDeps, type BenchRunDepsOptions } from './run-deps';
import { warmRunLeaderboard } from './run-leaderboard';

export interface BenchWorkers {
  readonly runner: BenchRunner;
  readonly queue: JobQueue;
  /** Stops taking jobs; unfinished chunks stay queued and are resumed at the next start. */
  stop(): Promise<void>;
}

export interface BenchWorkersOptions extends BenchRunDepsOptions {
  queue?: JobQueueOptions;
  /** Chunk jobs run at once (default 2). 0: enqueue only, other processes work (`terrarium worker`). */
  concurrency?: number;
}

/**
 * The job queue on the store and this process's workers: the embedded server runs bench runs
 * itself; runs left unfinished by a crash or a restart are re-enqueued (only their missing units).
 */
export async function startBenchWorkers(
  store: Store,
  options: BenchWorkersOptions = {},
): Promise<BenchWorkers> {
  const queue = await createJobQueue(store, options.queue ?? {});
  const concurrency = options.concurrency ?? 2;
  // Leaderboards being cached after a run's last chunk; `stop` ends them and waits (the store
  // closes next): a large run's bootstrap is computed again at its first view.
  const warmUps = new Set<Promise<void>>();
  const stopping = new AbortController();
  try {
    const deps = concurrency > 0 ? createBenchRunDeps(store, options) : null;
    const worker =
      deps !== null
        ? await startWorker({
            queue,
            deps,
            concurrency,
            // The chunk that finishes a run also caches its leaderboard (intervals included),
            // so the run page's first view after the end is one row, not a bootstrap.
            onChunk: (job) => {
              const warming = warmRunLeaderboard(store, job.runId, stopping.signal)
                .catch((error: unknown) => {
                  if (stopping.signal.aborted) return;
                  console.warn(`bench run ${job.runId}: leaderboard not cached: ${String(error)}`);
                })
                .finally(() => warmUps.delete(warming));
              warmUps.add(warming);
            },
          })
        : null;
    await resumeRuns(queue);
    return {
      queue,
      runner: {
        enqueue: async (runId) => {
          await queue.enqueueBenchRun(runId);
        },
        // As this process's workers will resolve it; with none here (`terrarium worker`s elsewhere,
        // their own allowlist and folders), only the spec's form can be checked.
        checkSimulator: (sim) => {
          if (deps === null) parseSimSpec(sim, 'sims');
          else
            checkSimulator(
              sim,
              {
                allowlist: options.allowlist ?? endpointAllowlistFromEnv(),
                anyOnnxPath: options.anyOnnxPath ?? false,
              },
              'sims',
            );
        },
      },
      async stop() {
        await worker?.stop();
        stopping.abort(new Error('the bench workers are stopping'));
        await Promise.allSettled(warmUps);
        await deps?.close?.();
        await queue.stop();
      },
    };
  } catch (error) {
    await queue.stop().catch(() => {});
    throw error;
  }
}
