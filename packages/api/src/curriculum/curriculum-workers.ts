import type { Store } from '@terrarium/db';
import { startCurriculumJobs, type CurriculumJobs, type JobQueue } from '@terrarium/jobs';
import { createCurriculumRunDeps, type CurriculumDepsOptions } from './curriculum-deps';

export interface CurriculumWorkersOptions extends CurriculumDepsOptions {
  /** Runs played at once in this process (default 1); 0: enqueue only. */
  concurrency?: number;
}

/**
 * Curriculum runs on the bench runs' job queue: this process's workers, and every run a crash or
 * a restart left unfinished enqueued again (it continues from its last checkpoint).
 */
export async function startCurriculumWorkers(
  store: Store,
  queue: JobQueue,
  options: CurriculumWorkersOptions = {},
): Promise<CurriculumJobs> {
  const jobs = await startCurriculumJobs(queue, {
    deps: createCurriculumRunDeps(store, options),
    concurrency: options.concurrency ?? 1,
  });
  await jobs.resume();
  return jobs;
}
