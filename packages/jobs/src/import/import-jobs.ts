import { rm } from 'node:fs/promises';
import type { ImportJobRecord, NewImportJob } from '@terrarium/db';
import { z } from 'zod';
import type { JobQueue } from '../job-queue';
import { runImportJob, type ImportJobOutcome } from './import-job';
import type { ImportProgress } from './import-run';

/** The pg-boss queue imports go through: one job per import (its files are read in order). */
export const IMPORT_QUEUE = 'import';

export const ImportQueueJob = z.object({ jobId: z.string() });

export interface ImportJobsOptions {
  /** Imports this process runs at once (default 1: an import keeps both cores busy). */
  concurrency?: number;
  /** Seconds between polls for new jobs when idle (default 1). */
  pollingIntervalSeconds?: number;
  /**
   * An import still active after this long is failed and retried (default 12 h): how a worker
   * killed mid-import hands it back on a shared queue. The embedded server does not wait for it:
   * `resume()` at start enqueues every unfinished import without a waiting job.
   */
  expireInSeconds?: number;
  /** How often a running import looks for a cancel (default 500 ms). */
  statusPollMs?: number;
  onJob?: (jobId: string, outcome: ImportJobOutcome) => void;
  /** Progress of imports running in this process, as they read. */
  onProgress?: (jobId: string, progress: ImportProgress) => void;
}

export interface ImportJobs {
  /** Stores a queued import job and enqueues it. */
  submit(job: NewImportJob): Promise<ImportJobRecord>;
  /**
   * Cancels a queued or running import: a running one stops at its next group and discards what
   * it stored; a waiting one never starts. False when it had already finished.
   */
  cancel(jobId: string): Promise<boolean>;
  /** Enqueues every queued or running import without a waiting job (after a crash or restart). */
  resume(): Promise<string[]>;
  /** The job once it has finished (done, failed or canceled); rejects when `signal` aborts. */
  finished(jobId: string, signal?: AbortSignal): Promise<ImportJobRecord>;
  /** Takes no new imports; a running one stops at its next group and stays resumable. */
  stop(): Promise<void>;
}

class ImportReleasedError extends Error {
  override readonly name = 'ImportReleasedError';
}

const FINISHED: readonly string[] = ['done', 'failed', 'canceled'];

/** Imports on the store's pg-boss queue, next to bench and curriculum runs. */
export async function startImportJobs(
  queue: JobQueue,
  options: ImportJobsOptions = {},
): Promise<ImportJobs> {
  const { boss, store } = queue;
  const schema = queue.options.schema;
  // pg-boss 10 refuses expirations of 24 h or more.
  const expireInSeconds = options.expireInSeconds ?? 12 * 3600;
  const queueOptions = {
    name: IMPORT_QUEUE,
    policy: 'standard' as const,
    retryLimit: 20,
    retryDelay: 1,
    expireInSeconds,
  };
  if (await boss.getQueue(IMPORT_QUEUE)) await boss.updateQueue(IMPORT_QUEUE, queueOptions);
  else await boss.createQueue(IMPORT_QUEUE, queueOptions);

  const stopping = new AbortController();
  const active = new Map<string, Promise<ImportJobOutcome>>();
  const workerIds: string[] = [];
  const concurrency = Math.max(0, Math.trunc(options.concurrency ?? 1));
  for (let n = 0; n < concurrency; n += 1) {
    workerIds.push(
      await queue.work(IMPORT_QUEUE, options.pollingIntervalSeconds ?? 1, async (jobs) => {
        for (const job of jobs) {
          const { jobId } = ImportQueueJob.parse(job.data);
          // A job already running here (enqueued twice) is not run a second time.
          if (active.has(jobId)) continue;
          const work = runImportJob(store, jobId, {
            signal: stopping.signal,
            ...(options.statusPollMs === undefined ? {} : { statusPollMs: options.statusPollMs }),
            ...(options.onProgress === undefined
              ? {}
              : {
                  onProgress: (progress: ImportProgress) => options.onProgress?.(jobId, progress),
                }),
          });
          active.set(jobId, work);
          try {
            const outcome = await work;
            options.onJob?.(jobId, outcome);
            // Failing the job hands it back to the queue: the next start (or worker) resumes it.
            if (outcome.status === 'interrupted') {
              throw new ImportReleasedError(`the worker stopped during import ${jobId}`);
            }
          } finally {
            active.delete(jobId);
          }
        }
      }),
    );
  }

  async function enqueue(jobId: string): Promise<void> {
    await boss.send(IMPORT_QUEUE, { jobId }, { retryLimit: 20, expireInSeconds });
    queue.wake(IMPORT_QUEUE);
  }

  return {
    async submit(job) {
      const created = await store.createImportJob(job);
      await enqueue(created.id);
      return created;
    },

    async cancel(jobId) {
      const before = await store.getImportJob(jobId);
      const canceled = await store.finishImportJob(jobId, 'canceled', {}, ['queued', 'running']);
      if (!canceled || before === null) return canceled;
      const running = active.get(jobId);
      if (running !== undefined) {
        // Its runner sees the status, discards its batch and deletes owned files.
        await running;
        return true;
      }
      if (before.batchId !== null) await store.discardImport(before.batchId);
      if (before.ownsFiles) {
        await Promise.all(before.files.map((file) => rm(file.path, { force: true })));
      }
      return true;
    },

    async resume() {
      const unfinished = (await store.listImportJobs(500)).filter(
        (job) => job.status === 'queued' || job.status === 'running',
      );
      if (unfinished.length === 0) return [];
      // pg-boss 10's job table (pinned version): jobs waiting to start. An `active` job is left
      // out: at a start it belongs to a process that died.
      const { rows } = await store.jobDb().executeSql(
        `SELECT data->>'jobId' AS job_id FROM ${schema}.job
           WHERE name = $1 AND state IN ('created', 'retry')`,
        [IMPORT_QUEUE],
      );
      const waiting = new Set(
        rows.flatMap((row) =>
          typeof row === 'object' &&
          row !== null &&
          'job_id' in row &&
          typeof row.job_id === 'string'
            ? [row.job_id]
            : [],
        ),
      );
      const resumed: string[] = [];
      for (const job of unfinished) {
        if (waiting.has(job.id)) continue;
        await enqueue(job.id);
        resumed.push(job.id);
      }
      return resumed;
    },

    async finished(jobId, signal) {
      for (;;) {
        signal?.throwIfAborted();
        const job = await store.getImportJob(jobId);
        if (job === null) throw new Error(`no import job ${jobId}`);
        if (FINISHED.includes(job.status)) return job;
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
    },

    async stop() {
      for (const id of workerIds) await boss.offWork({ id });
      stopping.abort(new Error('the worker is stopping'));
      await Promise.allSettled(active.values());
    },
  };
}
