import { setImmediate } from 'node:timers/promises';
import type { RunScoreAggregates, Store } from '@terrarium/db';
import {
  cellsFromAggregates,
  compareCodeUnits,
  groupIntervals,
  type GroupAggregate,
  type GroupStrata,
} from '@terrarium/bench';
import type { BenchRun, LeaderboardCell } from '@terrarium/schema';

/** Bootstrap resamples of the leaderboard the run page shows (the router's default). */
export const DEFAULT_BOOTSTRAP = 1000;
/** Seed of every leaderboard's bootstrap: a run's intervals are the same on every read. */
export const LEADERBOARD_SEED = 0;

const FINISHED: readonly BenchRun['status'][] = ['done', 'failed', 'canceled'];

export function isFinishedRun(run: Pick<BenchRun, 'status'>): boolean {
  return FINISHED.includes(run.status);
}

function groupKey(group: Pick<GroupAggregate, 'sim' | 'source' | 'metric'>): string {
  return JSON.stringify([group.sim, group.source, group.metric]);
}

/** The store's per-task sums grouped per (sim, source, metric), as packages/bench takes them. */
export function groupAggregates(aggregates: RunScoreAggregates): GroupAggregate[] {
  const overall = new Map(aggregates.overall.map((row) => [groupKey(row), row.sum]));
  const groups = new Map<string, GroupAggregate & { tasks: Map<string, GroupTask> }>();
  for (const row of aggregates.cells) {
    const key = groupKey(row);
    let group = groups.get(key);
    if (group === undefined) {
      group = {
        sim: row.sim,
        source: row.source,
        metric: row.metric,
        tasks: new Map(),
        overallSum: overall.get(key) ?? 0,
      };
      groups.set(key, group);
    }
    group.tasks.set(row.task, { n: row.n, sum: row.sum, nulls: row.nulls });
  }
  return [...groups.values()];
}

interface GroupTask {
  n: number;
  sum: number;
  nulls: number;
}

/**
 * A run's leaderboard from SQL aggregates (see `cellsFromAggregates` for what each number is).
 * While the run goes on: the means of what is scored so far, without intervals (they would change
 * with every unit and cost a bootstrap per read). Once finished: with the seeded bootstrap
 * intervals, computed once from the stored values and cached in the store with the scores they
 * came from, so every later read is one row.
 */
export async function runLeaderboard(
  store: Store,
  run: BenchRun,
  bootstrap: number,
): Promise<LeaderboardCell[]> {
  const finished = isFinishedRun(run);
  const key = { resamples: bootstrap, seed: LEADERBOARD_SEED };
  if (finished) {
    const cached = await store.getRunLeaderboard(run.id, key);
    if (cached !== null) return cached;
  }
  // A finished run's tables got all its rows in bulk: the planner needs to know (PGlite).
  if (finished) await store.refreshRunStatistics();
  // Running: the totals the writer keeps current (a few hundred rows at any size); finished:
  // ordered aggregates over the scores, whose means equal the in-memory ones bit for bit.
  const aggregates = finished
    ? await store.runScoreAggregates(run.id)
    : await store.runScoreTotals(run.id);
  if (aggregates === null) return [];
  const groups = groupAggregates(aggregates);
  const itemsPerTask = new Map(aggregates.itemsPerTask.map((row) => [row.task, row.items]));
  if (!finished) return cellsFromAggregates(groups, itemsPerTask, () => null);
  const tasks = [...itemsPerTask.keys()].toSorted(compareCodeUnits);
  const intervals = new Map<GroupAggregate, ReturnType<typeof groupIntervals>>();
  if (bootstrap > 0) {
    for (const group of groups) {
      // A turn of the event loop per group: on PGlite this thread also serves every request,
      // and a large run's bootstrap takes about a second per group.
      await setImmediate();
      const strata: GroupStrata = await store.runScoreStrata(run.id, group);
      intervals.set(
        group,
        groupIntervals(group, tasks, strata, { bootstrap, seed: LEADERBOARD_SEED }),
      );
    }
  }
  const cells = cellsFromAggregates(groups, itemsPerTask, (group) => intervals.get(group) ?? null);
  await store.putRunLeaderboard(run.id, key, aggregates.scoresVersion, cells);
  return cells;
}

// One computation per (store, run, bootstrap) at a time: the first view of a large finished run
// and the worker's warm-up must not both run its bootstrap.
const inFlight = new WeakMap<Store, Map<string, Promise<LeaderboardCell[]>>>();

export function sharedRunLeaderboard(
  store: Store,
  run: BenchRun,
  bootstrap: number,
): Promise<LeaderboardCell[]> {
  if (!isFinishedRun(run)) return runLeaderboard(store, run, bootstrap);
  let running = inFlight.get(store);
  if (running === undefined) {
    running = new Map();
    inFlight.set(store, running);
  }
  const key = `${run.id}\u0000${bootstrap}`;
  const existing = running.get(key);
  if (existing !== undefined) return existing;
  const work = runLeaderboard(store, run, bootstrap).finally(() => running.delete(key));
  running.set(key, work);
  return work;
}

/**
 * Computes and caches a run's leaderboard when the run has just finished, so its first view is
 * already one row. Called by this process's workers after each chunk; a no-op for running runs.
 */
export async function warmRunLeaderboard(store: Store, runId: string): Promise<void> {
  const run = await store.getBenchRun(runId);
  if (run === null || !isFinishedRun(run)) return;
  await sharedRunLeaderboard(store, run, DEFAULT_BOOTSTRAP);
}
