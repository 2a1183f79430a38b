import type { ImportJobView } from '@terrarium/schema';
import { formatCount } from '../../app/format';

/**
 * A size in decimal units, as `ls --si`, file managers and the data's SOURCE.md files give it
 * (walk 46: 264,347,818 bytes read "252.1 MB", a MiB figure under the MB label).
 */
export function formatBytes(bytes: number): string {
  if (bytes < 1000) return `${bytes} B`;
  if (bytes < 1_000_000) return `${(bytes / 1000).toFixed(1)} KB`;
  if (bytes < 1_000_000_000) return `${(bytes / 1_000_000).toFixed(1)} MB`;
  return `${(bytes / 1_000_000_000).toFixed(2)} GB`;
}

/** Share of the job's bytes behind its stored groups, 0-1. */
export function jobFraction(job: ImportJobView): number {
  if (job.totalBytes <= 0) return job.status === 'done' ? 1 : 0;
  return Math.min(1, job.doneBytes / job.totalBytes);
}

export function isActive(job: ImportJobView): boolean {
  return job.status === 'queued' || job.status === 'running';
}

/** What a running or waiting import is doing, in the user's words. */
export function jobProgressText(job: ImportJobView): string {
  if (job.status === 'queued') {
    return job.resumes > 0 ? 'waiting to resume' : 'waiting to start';
  }
  const percent = Math.floor(jobFraction(job) * 100);
  return `importing: ${percent}% stored, ${formatCount(job.trajectories)} trajectories so far`;
}

/** Said beside an import that a restart or a crash interrupted and that continued from there. */
export function resumedText(job: ImportJobView): string | null {
  if (job.resumes === 0) return null;
  const times = job.resumes === 1 ? 'once' : `${job.resumes} times`;
  return `resumed ${times} after the server stopped, from its last stored part`;
}
