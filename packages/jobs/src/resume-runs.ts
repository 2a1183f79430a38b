import type { JobQueue } from './job-queue';

/**
 * Re-enqueues the missing chunks of every queued or running run, e.g. at server start after a
 * crash: units already recorded are not redone and units a live job still carries are not doubled.
 */
export async function resumeRuns(queue: JobQueue): Promise<{ runId: string; chunks: number }[]> {
  const unfinished = (await queue.store.listBenchRuns()).filter(
    (run) => run.status === 'queued' || run.status === 'running',
  );
  const resumed: { runId: string; chunks: number }[] = [];
  for (const run of unfinished) {
    resumed.push({ runId: run.id, chunks: await queue.enqueueBenchRun(run.id) });
  }
  return resumed;
}
