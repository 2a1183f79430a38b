import type { CurriculumRunRecord } from '@terrarium/db';
import {
  CURRICULUM_RUN_QUEUE,
  CurriculumJob,
  CurriculumRunSettings,
  executeCurriculumRun,
  type CurriculumRunDeps,
  type CurriculumRunOutcome,
} from './curriculum-run';
import type { JobQueue } from './job-queue';

export interface CurriculumJobsOptions {
  deps: CurriculumRunDeps;
  /** Runs this process plays at once (default 1). 0: enqueue only, other processes work. */
  concurrency?: number;
  /** Seconds between polls for new jobs when idle (default 1). */
  pollingIntervalSeconds?: number;
  /** How often a running job looks for a cancel (default 500 ms). */
  statusPollMs?: number;
  /**
   * A job still active after this long is failed and retried (default 6 h): how the job of a
   * worker killed mid-run comes back on a shared queue. The embedded server does not wait for it:
   * `resume()` at start enqueues every unfinished run that has no waiting job.
   */
  expireInSeconds?: number;
  onRun?: (runId: string, outcome: CurriculumRunOutcome) => void;
}

export interface StartCurriculumRun {
  dataset: string;
  settings: CurriculumRunSettings;
  generations: number;
}

export interface CurriculumJobs {
  /** Stores a queued run and enqueues its job. */
  submit(input: StartCurriculumRun): Promise<CurriculumRunRecord>;
  /** Marks the run canceled; its worker stops at the next rollout. */
  cancel(runId: string): Promise<boolean>;
  /** Enqueues every queued or running run without a waiting job (after a crash or restart). */
  resume(): Promise<string[]>;
  /**
   * Queues a canceled or failed run again; it goes on from its last finished generation. False
   * when the run is not canceled or failed (done, or still going).
   */
  continueRun(runId: string): Promise<boolean>;
  /** Takes no new runs; a run in progress stops at its next rollout and stays resumable. */
  stop(): Promise<void>;
}

class RunReleasedError extends Error {
  override readonly name = 'RunReleasedError';
}

/** Curriculum runs on the store's pg-boss queue, next to bench runs. */
export async function startCurriculumJobs(
  queue: JobQueue,
  options: CurriculumJobsOptions,
): Promise<CurriculumJobs> {
  const { boss, store } = queue;
  const schema = queue.options.schema;
  const expireInSeconds = options.expireInSeconds ?? 6 * 3600;
  const queueOptions = {
    name: CURRICULUM_RUN_QUEUE,
    policy: 'standard' as const,
    retryLimit: 20,
    retryDelay: 1,
    expireInSeconds,
  };
  if (await boss.getQueue(CURRICULUM_RUN_QUEUE))
    await boss.updateQueue(CURRICULUM_RUN_QUEUE, queueOptions);
  else await boss.createQueue(CURRICULUM_RUN_QUEUE, queueOptions);

  const stopping = new AbortController();
  const active = new Set<Promise<unknown>>();
  const workerIds: string[] = [];
  const concurrency = Math.max(0, Math.trunc(options.concurrency ?? 1));
  for (let n = 0; n < concurrency; n += 1) {
    workerIds.push(
      await queue.work(CURRICULUM_RUN_QUEUE, options.pollingIntervalSeconds ?? 1, async (jobs) => {
        for (const job of jobs) {
          const { runId } = CurriculumJob.parse(job.data);
          const work = executeCurriculumRun(store, runId, options.deps, {
            signal: stopping.signal,
            ...(options.statusPollMs === undefined ? {} : { statusPollMs: options.statusPollMs }),
          });
          active.add(work);
          try {
            const outcome = await work;
            options.onRun?.(runId, outcome);
            // Failing the job hands it back to the queue: the next start (or worker) resumes it.
            if (outcome.stoppedBy === 'worker-stop')
              throw new RunReleasedError(`the worker stopped during run ${runId}`);
          } finally {
            active.delete(work);
          }
        }
      }),
    );
  }

  async function enqueue(runId: string): Promise<void> {
    await boss.send(CURRICULUM_RUN_QUEUE, { runId }, { retryLimit: 20, expireInSeconds });
    queue.wake(CURRICULUM_RUN_QUEUE);
  }

  return {
    async submit(input) {
      const run = await store.createCurriculumRun({
        dataset: input.dataset,
        settings: CurriculumRunSettings.parse(input.settings),
        generations: input.generations,
      });
      await enqueue(run.id);
      return run;
    },
    cancel: (runId) => store.setCurriculumRunStatus(runId, 'canceled', null, ['queued', 'running']),
    async continueRun(runId) {
      const queued = await store.setCurriculumRunStatus(runId, 'queued', null, [
        'canceled',
        'failed',
      ]);
      if (queued) await enqueue(runId);
      return queued;
    },
    async resume() {
      const unfinished = (await store.listCurriculumRuns()).filter(
        (run) => run.status === 'queued' || run.status === 'running',
      );
      if (unfinished.length === 0) return [];
      const jobDb = store.jobDb();
      // pg-boss 10's job table (pinned version): jobs waiting to start. An `active` job is left
      // out: at a start it belongs to a process that died; if it lives (a shared queue), the
      // generation lock in the store lets only one of the two record anything.
      const { rows } = await jobDb.executeSql(
        `SELECT data->>'runId' AS run_id FROM ${schema}.job
         WHERE name = $1 AND state IN ('created', 'retry')`,
        [CURRICULUM_RUN_QUEUE],
      );
      const waiting = new Set(
        rows.flatMap((row) =>
          typeof row === 'object' &&
          row !== null &&
          'run_id' in row &&
          typeof row.run_id === 'string'
            ? [row.run_id]
            : [],
        ),
      );
      const resumed: string[] = [];
      for (const run of unfinished) {
        if (waiting.has(run.id)) continue;
        await enqueue(run.id);
        resumed.push(run.id);
      }
      return resumed;
    },
    async stop() {
      for (const id of workerIds) await boss.offWork({ id });
      stopping.abort(new Error('the worker is stopping'));
      await Promise.allSettled(active);
    },
  };
}
