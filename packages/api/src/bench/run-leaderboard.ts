import { setTimeout as sleep } from 'node:timers/promises';
import type { RunScoreTotals, Store } from '@terrarium/db';
import { cellsFromAggregates, compareCodeUnits, type GroupAggregate } from '@terrarium/bench';
import {
  isFinishedRun,
  type BenchRun,
  type Leaderboard,
  type LeaderboardCell,
} from '@terrarium/schema';
import { groupKey, readRunStrata, runIntervals, type IntervalOptions } from './run-intervals';

/** Bootstrap resamples of the leaderboard the run page shows (the router's default). */
export const DEFAULT_BOOTSTRAP = 1000;
/**
 * Seed of every leaderboard's bootstrap: a run's intervals are the same on every read. It is 1
 * since the bootstrap stopped seeding each group by its name (4 Dec 2026): a data folder's cached
 * leaderboards of the old kind, stored under seed 0, are not read but computed again.
 */
export const LEADERBOARD_SEED = 1;
/**
 * How long a view of a just-finished run waits for its intervals before it answers with the
 * means alone (final already) and says the intervals are being computed.
 */
export const INTERVALS_WAIT_MS = 400;
// A cache write refused because the scores changed meanwhile (re-judged) is computed again, a
// few times at most.
const ATTEMPTS = 3;

/** The store's totals grouped per (sim, source, metric), as packages/bench takes them. */
export function groupAggregates(totals: RunScoreTotals): GroupAggregate[] {
  const groups = new Map<string, GroupAggregate & { tasks: Map<string, GroupTask> }>();
  for (const row of totals.cells) {
    const key = groupKey(row);
    let group = groups.get(key);
    if (group === undefined) {
      group = { sim: row.sim, source: row.source, metric: row.metric, tasks: new Map() };
      groups.set(key, group);
    }
    group.tasks.set(row.task, { n: row.n, gridSum: row.gridSum, nulls: row.nulls });
  }
  return [...groups.values()];
}

interface GroupTask {
  n: number;
  gridSum: number;
  nulls: number;
}

function itemsPerTaskOf(totals: RunScoreTotals): Map<string, number> {
  return new Map(totals.itemsPerTask.map((row) => [row.task, row.items]));
}

/** The cells' means, exact at any moment of a run (the writer's totals), without intervals. */
async function meanCells(store: Store, run: BenchRun): Promise<LeaderboardCell[]> {
  const totals = await store.runScoreTotals(run.id);
  if (totals === null) return [];
  return cellsFromAggregates(groupAggregates(totals), itemsPerTaskOf(totals), () => null);
}

/**
 * A finished run's leaderboard with its bootstrap intervals, stored in the cache for the scores
 * it came from. The means are the writer's totals; the bootstrap reads the values a page at a time
 * and resamples on a worker thread when large (run-intervals.ts), so the event loop is never held
 * for long at any run size.
 */
async function computeLeaderboard(
  store: Store,
  run: BenchRun,
  options: IntervalOptions,
): Promise<LeaderboardCell[]> {
  const key = { resamples: options.bootstrap, seed: options.seed };
  // The run is over: its scores can be readied for deep cell pages (and the reads below).
  await store.settleRunScores();
  let cells: LeaderboardCell[] = [];
  for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
    const totals = await store.runScoreTotals(run.id);
    if (totals === null) return [];
    const groups = groupAggregates(totals);
    const itemsPerTask = itemsPerTaskOf(totals);
    const tasks = [...itemsPerTask.keys()].toSorted(compareCodeUnits);
    const strata = await readRunStrata(store, run.id, options.signal);
    const intervals = await runIntervals(groups, tasks, strata, options);
    cells = cellsFromAggregates(groups, itemsPerTask, (group) => intervals.get(group) ?? null);
    if (await store.putRunLeaderboard(run.id, key, totals.scoresVersion, cells)) return cells;
    // Not stored: the scores changed while the values were read (re-judged); the cells may mix
    // both versions, so they are computed again.
    if ((await store.runScoreTotals(run.id))?.scoresVersion === totals.scoresVersion) return cells;
  }
  return cells;
}

// One computation per (store, run, bootstrap) at a time: the views of a just-finished run and the
// worker's warm-up share it.
const inFlight = new WeakMap<Store, Map<string, Promise<LeaderboardCell[]>>>();

function sharedComputation(
  store: Store,
  run: BenchRun,
  options: IntervalOptions,
): Promise<LeaderboardCell[]> {
  let running = inFlight.get(store);
  if (running === undefined) {
    running = new Map();
    inFlight.set(store, running);
  }
  const key = `${run.id}\u0000${options.bootstrap}`;
  const existing = running.get(key);
  if (existing !== undefined) return existing;
  const work = computeLeaderboard(store, run, options).finally(() => running.delete(key));
  // Views that stopped waiting do not see its failure; the next view computes again.
  work.catch(() => {});
  running.set(key, work);
  return work;
}

/**
 * The run's leaderboard: while it goes on, the means of what is scored so far; once finished,
 * the cached cells with their intervals, computed now if they are not cached yet.
 */
export async function runLeaderboard(
  store: Store,
  run: BenchRun,
  bootstrap: number,
  options: Partial<IntervalOptions> = {},
): Promise<LeaderboardCell[]> {
  if (!isFinishedRun(run) || bootstrap <= 0) return meanCells(store, run);
  const cached = await store.getRunLeaderboard(run.id, {
    resamples: bootstrap,
    seed: LEADERBOARD_SEED,
  });
  if (cached !== null) return cached;
  return sharedComputation(store, run, { ...options, bootstrap, seed: LEADERBOARD_SEED });
}

/**
 * What the run page shows now. A finished run's intervals that are not cached yet are computed in
 * the background; a view waits `waitMs` for them (a small run's take less), then answers with the
 * means, which are already final, and `computing`.
 */
export async function currentLeaderboard(
  store: Store,
  run: BenchRun,
  bootstrap: number,
  waitMs: number = INTERVALS_WAIT_MS,
): Promise<Pick<Leaderboard, 'cells' | 'intervals'>> {
  if (!isFinishedRun(run)) return { cells: await meanCells(store, run), intervals: 'after-run' };
  if (bootstrap <= 0) return { cells: await meanCells(store, run), intervals: 'ready' };
  const cached = await store.getRunLeaderboard(run.id, {
    resamples: bootstrap,
    seed: LEADERBOARD_SEED,
  });
  if (cached !== null) return { cells: cached, intervals: 'ready' };
  const work = sharedComputation(store, run, { bootstrap, seed: LEADERBOARD_SEED });
  const waited = new AbortController();
  const done = await Promise.race([
    work.then((cells) => ({ cells })),
    sleep(waitMs, null, { signal: waited.signal }).catch(() => null),
  ]);
  waited.abort();
  if (done !== null) return { cells: done.cells, intervals: 'ready' };
  return { cells: await meanCells(store, run), intervals: 'computing' };
}

/**
 * Computes and caches a run's leaderboard when the run has just finished, so its first view is
 * already one row. Called by this process's workers after each chunk; a no-op for running runs.
 */
export async function warmRunLeaderboard(
  store: Store,
  runId: string,
  signal?: AbortSignal,
): Promise<void> {
  const run = await store.getBenchRun(runId);
  if (run === null || !isFinishedRun(run)) return;
  await runLeaderboard(store, run, DEFAULT_BOOTSTRAP, signal === undefined ? {} : { signal });
}
