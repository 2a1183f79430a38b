import type { SqlExecutor } from './executor';

/** The tables a dataset's rows live in (each cascades from `datasets`). */
export const DATASET_TABLES = [
  'datasets',
  'import_batches',
  'trajectories',
  'step_pages',
  'quarantine',
] as const;

/** A bench's own tables (cascading from `benches`); its runs' are `RUN_TABLES`. */
export const BENCH_TABLES = [
  'benches',
  'bench_items',
  'bench_contexts',
  'bench_split_tasks',
] as const;

/** A run's tables (cascading from `bench_runs`). */
export const RUN_TABLES = [
  'bench_runs',
  'bench_run_prompts',
  'run_predictions',
  'run_scores',
  'run_score_totals',
  'run_score_slices',
  'run_leaderboards',
] as const;

/**
 * After a delete that cascaded through `tables` (and committed). PGlite runs no autovacuum:
 * without this the deleted rows' pages were never used again, so a store grew by each deleted and
 * re-imported dataset or run and gave nothing back. VACUUM frees the pages for the next writes
 * and returns the trailing ones to the disk (~0.15 s on a store of 7,583 trajectories); on
 * PostgreSQL it only comes before autovacuum would, and blocks no reader or writer. Best effort:
 * the delete has happened whatever VACUUM does, so its failure must not report the delete as
 * failed; the space then waits for the next one.
 */
export async function vacuumAfterDelete(
  executor: SqlExecutor,
  tables: readonly string[],
): Promise<void> {
  try {
    await executor.exec(`VACUUM ${tables.join(', ')}`);
  } catch {
    // See above: the next delete's VACUUM frees these pages too.
  }
}
