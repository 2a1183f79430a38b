import { startImportJobs, type ImportJobs, type JobQueue } from '@terrarium/jobs';

/**
 * Imports on the bench runs' job queue: this process's worker, and every import a crash or a
 * restart left unfinished enqueued again (it continues from its last stored group).
 */
export async function startImportWorkers(
  queue: JobQueue,
  options: { concurrency?: number } = {},
): Promise<ImportJobs> {
  const jobs = await startImportJobs(queue, {
    concurrency: options.concurrency ?? 1,
    onJob: (jobId, outcome) => {
      if (outcome.status === 'failed') console.error(`import ${jobId} failed:`, outcome.error);
    },
  });
  await jobs.resume();
  return jobs;
}
