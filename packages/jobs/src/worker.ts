import { setMaxListeners } from 'node:events';
import type { BenchRunDeps } from './bench-run-deps';
import { BENCH_RUN_QUEUE, ChunkJob } from './chunk-job';
import {
  createEndpointLimits,
  type EndpointLimitDefaults,
  type EndpointLimits,
} from './endpoint-limits';
import type { JobQueue } from './job-queue';
import { FinishedRuns, runBenchChunk, type ChunkOutcome } from './run-bench-chunk';

export interface WorkerOptions {
  queue: JobQueue;
  deps: BenchRunDeps;
  /** Chunk jobs this worker runs at once (default 2); endpoint limits apply across them. */
  concurrency?: number;
  limits?: EndpointLimits | Partial<EndpointLimitDefaults>;
  /** Seconds between polls for new jobs when idle (default 1; pg-boss's minimum is 0.5). */
  pollingIntervalSeconds?: number;
  statusPollMs?: number;
  /** Called after each chunk, e.g. to log. */
  onChunk?: (job: ChunkJob, outcome: ChunkOutcome) => void;
  /** Called when a chunk starts, e.g. to log which units this worker holds. */
  onChunkStart?: (job: ChunkJob) => void;
}

export interface BenchWorker {
  /**
   * Takes no new jobs, lets in-flight predictions finish for up to `graceMs` (default 10 s),
   * then abandons the rest; unfinished chunks go back to the queue for another worker.
   */
  stop(options?: { graceMs?: number }): Promise<void>;
}

/** Error a chunk's job fails with so that pg-boss retries it on another worker. */
export class ChunkReleasedError extends Error {
  override readonly name = 'ChunkReleasedError';
}

function isLimits(value: WorkerOptions['limits']): value is EndpointLimits {
  return typeof value === 'object' && value !== null && 'acquire' in value;
}

/** Takes `bench-run` chunk jobs from the queue until stopped. */
export async function startWorker(options: WorkerOptions): Promise<BenchWorker> {
  const { queue, deps } = options;
  const limits = isLimits(options.limits)
    ? options.limits
    : createEndpointLimits(options.limits ?? {});
  const stopping = new AbortController();
  // One listener per chunk in flight; more than 10 chunks at once is normal, not a leak.
  setMaxListeners(0, stopping.signal);
  const active = new Set<Promise<unknown>>();
  const finishedRuns = new FinishedRuns();

  async function handle(jobs: { id: string; data: unknown }[]): Promise<void> {
    for (const job of jobs) {
      const chunk = ChunkJob.parse(job.data);
      options.onChunkStart?.(chunk);
      const work = runBenchChunk(
        {
          store: queue.store,
          deps,
          limits,
          signal: stopping.signal,
          statusPollMs: options.statusPollMs,
          finishedRuns,
        },
        chunk,
      );
      active.add(work);
      try {
        const outcome = await work;
        options.onChunk?.(chunk, outcome);
        if (outcome.stoppedBy === 'worker-stop') {
          throw new ChunkReleasedError(
            `worker stopped with ${outcome.abandoned} units of the chunk unrecorded`,
          );
        }
      } finally {
        active.delete(work);
      }
    }
  }

  // A failure here shows again, as the scores' error, when the first run needs what failed.
  deps.prepare?.().catch(() => {});
  const concurrency = Math.max(1, Math.trunc(options.concurrency ?? 2));
  const workerIds: string[] = [];
  for (let n = 0; n < concurrency; n++) {
    const id = await queue.work(BENCH_RUN_QUEUE, options.pollingIntervalSeconds ?? 1, handle);
    workerIds.push(id);
  }

  let stopped: Promise<void> | null = null;
  return {
    stop(stopOptions = {}) {
      stopped ??= (async () => {
        for (const id of workerIds) await queue.boss.offWork({ id });
        const grace = new Promise<void>((resolve) =>
          setTimeout(resolve, stopOptions.graceMs ?? 10_000).unref(),
        );
        await Promise.race([Promise.allSettled(active), grace]);
        stopping.abort(new Error('the worker is stopping'));
        await Promise.allSettled(active);
      })();
      return stopped;
    },
  };
}
