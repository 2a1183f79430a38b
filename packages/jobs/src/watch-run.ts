import type { Store } from '@terrarium/db';
import type { BenchRun, BenchRunStatus, RunUsage } from '@terrarium/schema';

export interface RunProgress {
  runId: string;
  status: BenchRunStatus;
  done: number;
  failed: number;
  total: number;
  usage: RunUsage;
}

export interface WatchOptions {
  /** Default 250 ms. */
  intervalMs?: number;
  /** Ends the iteration early. */
  signal?: AbortSignal;
}

const FINISHED: readonly BenchRunStatus[] = ['done', 'failed', 'canceled'];

function progressOf(run: BenchRun): RunProgress {
  return {
    runId: run.id,
    status: run.status,
    done: run.done,
    failed: run.failed,
    total: run.total,
    usage: run.usage,
  };
}

function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    }
    signal?.addEventListener('abort', done, { once: true });
  });
}

/**
 * The run's progress: now, then each time it changes, ending after a done/failed/canceled
 * snapshot. It polls the store, so it follows workers in any process.
 */
export async function* watchRun(
  store: Store,
  runId: string,
  options: WatchOptions = {},
): AsyncGenerator<RunProgress> {
  let last = '';
  while (!options.signal?.aborted) {
    const run = await store.getBenchRun(runId);
    if (!run) throw new Error(`no bench run ${runId}`);
    const progress = progressOf(run);
    const key = JSON.stringify(progress);
    if (key !== last) {
      last = key;
      yield progress;
    }
    if (FINISHED.includes(run.status)) return;
    await sleep(options.intervalMs ?? 250, options.signal);
  }
}
