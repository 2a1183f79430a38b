import { isFinishedRun, type BenchRun } from '@terrarium/schema';

/**
 * The newer of two snapshots of one run. The first load and the stream can answer in either
 * order, so the snapshot that finished more work wins, and a finished run never goes back to
 * running.
 */
export function newerRun(current: BenchRun | null, next: BenchRun): BenchRun {
  if (current === null || current.id !== next.id) return next;
  if (isFinishedRun(current) && !isFinishedRun(next)) return current;
  if (isFinishedRun(next) && !isFinishedRun(current)) return next;
  return next.done + next.failed >= current.done + current.failed ? next : current;
}
