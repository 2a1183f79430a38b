import type { BenchItem, ItemScore, LeaderboardCell, ScoreSource } from '@terrarium/schema';
import { canonicalJson, compareCodeUnits, seededRandom, seedFromText } from '../hash';

/** Pseudo-task of the sample-weighted mean over every item. */
export const OVERALL_TASK = 'overall';
/** Pseudo-task of the mean of the task means. */
export const MACRO_TASK = 'macro';

export interface LeaderboardOptions {
  /** Bootstrap resamples for the 95% interval (0: no interval). */
  bootstrap: number;
  seed: number;
}

type ItemRef = Pick<BenchItem, 'id' | 'task'>;

interface Group {
  sim: string;
  source: ScoreSource;
  metric: string;
  /** Per item: the values of its score rows (several for repeated judgings), null for unparseable. */
  byItem: Map<string, (number | null)[]>;
}

/** What a cell is made of: per task, the item values and how many items had none. */
interface TaskValues {
  values: number[];
  missing: number;
}

function mean(values: readonly number[]): number {
  let sum = 0;
  for (const value of values) sum += value;
  return sum / values.length;
}

function percentile(sorted: readonly number[], p: number): number {
  const at = Math.min(sorted.length - 1, Math.max(0, Math.round(p * (sorted.length - 1))));
  return sorted[at] ?? Number.NaN;
}

/**
 * 95% percentile bootstrap interval of a statistic over strata resampled independently (one stratum
 * for a plain mean, one per task for the macro mean), ×100.
 */
function bootstrapInterval(
  strata: readonly (readonly number[])[],
  statistic: (means: readonly number[], sizes: readonly number[]) => number,
  resamples: number,
  seedText: string,
): { low: number | null; high: number | null } {
  const total = strata.reduce((sum, values) => sum + values.length, 0);
  if (resamples <= 0 || total < 2) return { low: null, high: null };
  const random = seededRandom(seedFromText(seedText));
  const sizes = strata.map((values) => values.length);
  const estimates: number[] = [];
  for (let r = 0; r < resamples; r++) {
    const means = strata.map((values) => {
      let sum = 0;
      for (let i = 0; i < values.length; i++) {
        sum += values[Math.floor(random() * values.length)] ?? 0;
      }
      return sum / values.length;
    });
    estimates.push(statistic(means, sizes));
  }
  estimates.sort((a, b) => a - b);
  return { low: percentile(estimates, 0.025) * 100, high: percentile(estimates, 0.975) * 100 };
}

const weightedMean = (means: readonly number[], sizes: readonly number[]) => {
  let sum = 0;
  let count = 0;
  means.forEach((value, i) => {
    sum += value * (sizes[i] ?? 0);
    count += sizes[i] ?? 0;
  });
  return sum / count;
};
const plainMean = (means: readonly number[]) => mean(means);

/** One (simulator, source, metric)'s scores reduced to what its cells need, per task. */
export interface GroupAggregate {
  sim: string;
  source: ScoreSource;
  metric: string;
  /**
   * Per task: items with a value (n), the sum of their values added one by one in item order
   * (so that sum / n is bit for bit the mean of those values), and items whose value is null.
   */
  tasks: ReadonlyMap<string, { n: number; sum: number; nulls: number }>;
  /** Every value of the group added one by one in task order, then item order. */
  overallSum: number;
}

/** A group's values per task (item order), tasks in code-unit order: what the bootstrap resamples. */
export type GroupStrata = ReadonlyMap<string, readonly number[]>;

/** The seed text of one cell's bootstrap. */
function cellSeedText(
  seed: number,
  group: Pick<GroupAggregate, 'sim' | 'source' | 'metric'>,
  task: string,
) {
  return canonicalJson([seed, group.sim, group.source, group.metric, task]);
}

/**
 * The 95% intervals of one group's cells (each task, overall, macro), seeded by the cell: the same
 * numbers whether the values come from memory or from the store.
 */
export function groupIntervals(
  group: Pick<GroupAggregate, 'sim' | 'source' | 'metric'>,
  tasks: readonly string[],
  strata: GroupStrata,
  options: LeaderboardOptions,
): Map<string, { low: number | null; high: number | null }> {
  const intervals = new Map<string, { low: number | null; high: number | null }>();
  const all = tasks.map((task) => strata.get(task) ?? []);
  for (const [index, task] of tasks.entries()) {
    const values = all[index] ?? [];
    intervals.set(
      task,
      bootstrapInterval(
        [values],
        weightedMean,
        options.bootstrap,
        cellSeedText(options.seed, group, task),
      ),
    );
  }
  const present = all.filter((values) => values.length > 0);
  intervals.set(
    OVERALL_TASK,
    bootstrapInterval(
      [present.flat()],
      weightedMean,
      options.bootstrap,
      cellSeedText(options.seed, group, OVERALL_TASK),
    ),
  );
  intervals.set(
    MACRO_TASK,
    bootstrapInterval(
      present,
      plainMean,
      options.bootstrap,
      cellSeedText(options.seed, group, MACRO_TASK),
    ),
  );
  return intervals;
}

/** Groups in the leaderboard's order: simulator, source, metric (code units). */
export function compareGroups(
  a: Pick<GroupAggregate, 'sim' | 'source' | 'metric'>,
  b: Pick<GroupAggregate, 'sim' | 'source' | 'metric'>,
): number {
  return (
    compareCodeUnits(a.sim, b.sim) ||
    compareCodeUnits(a.source, b.source) ||
    compareCodeUnits(a.metric, b.metric)
  );
}

/**
 * Leaderboard cells from per-task aggregates (see `leaderboard` for what a cell means). Intervals
 * come from `intervalsOf` (null when it gives none: a run still going shows means only).
 */
export function cellsFromAggregates(
  groups: readonly GroupAggregate[],
  itemsPerTask: ReadonlyMap<string, number>,
  intervalsOf: (
    group: GroupAggregate,
  ) => ReadonlyMap<string, { low: number | null; high: number | null }> | null,
): LeaderboardCell[] {
  const tasks = [...itemsPerTask.keys()].toSorted(compareCodeUnits);
  const cells: LeaderboardCell[] = [];
  for (const group of groups.toSorted(compareGroups)) {
    const intervals = intervalsOf(group);
    const push = (task: string, point: number | null, n: number, missing: number) => {
      const interval = intervals?.get(task);
      cells.push({
        sim: group.sim,
        task,
        source: group.source,
        metric: group.metric,
        mean: point,
        ciLow: interval?.low ?? null,
        ciHigh: interval?.high ?? null,
        n,
        missing,
      });
    };
    let totalN = 0;
    let totalMissing = 0;
    const taskMeans: number[] = [];
    for (const task of tasks) {
      const entry = group.tasks.get(task) ?? { n: 0, sum: 0, nulls: 0 };
      // A null rule metric means "does not apply": neither scored nor missing.
      const notApplicable = group.source === 'rule' ? entry.nulls : 0;
      const missing = (itemsPerTask.get(task) ?? 0) - entry.n - notApplicable;
      const taskMean = entry.n === 0 ? null : entry.sum / entry.n;
      if (taskMean !== null) taskMeans.push(taskMean);
      totalN += entry.n;
      totalMissing += missing;
      push(task, taskMean === null ? null : taskMean * 100, entry.n, missing);
    }
    push(
      OVERALL_TASK,
      totalN === 0 ? null : (group.overallSum / totalN) * 100,
      totalN,
      totalMissing,
    );
    push(MACRO_TASK, totalN === 0 ? null : mean(taskMeans) * 100, totalN, totalMissing);
  }
  return cells;
}

/** Sums one by one, in order (what `mean` does), so stored and in-memory sums agree exactly. */
function sequentialSum(values: readonly number[], start = 0): number {
  let sum = start;
  for (const value of values) sum += value;
  return sum;
}

/**
 * The leaderboard: per simulator × task × (source, metric), the mean over items ×100 with a seeded
 * 95% percentile bootstrap interval, the items scored (n) and missing; plus `overall` (every item
 * weighs the same) and `macro` (every task weighs the same). An item with several rows for a cell
 * (repeated judgings) counts once, with their mean. Missing: items of the bench without a value —
 * no row at all (the simulator failed) or, for judges and humans, a null (unparseable) answer. A
 * null rule metric means "does not apply" and is neither scored nor missing.
 */
export function leaderboard(
  scores: readonly ItemScore[],
  items: readonly ItemRef[],
  options: LeaderboardOptions,
): LeaderboardCell[] {
  const taskOf = new Map(items.map((item) => [item.id, item.task]));
  const itemsPerTask = new Map<string, number>();
  for (const item of items) itemsPerTask.set(item.task, (itemsPerTask.get(item.task) ?? 0) + 1);
  const tasks = [...itemsPerTask.keys()].toSorted(compareCodeUnits);

  const groups = new Map<string, Group>();
  for (const score of scores) {
    if (!taskOf.has(score.itemId)) continue;
    const key = canonicalJson([score.sim, score.source, score.metric]);
    let group = groups.get(key);
    if (group === undefined) {
      group = { sim: score.sim, source: score.source, metric: score.metric, byItem: new Map() };
      groups.set(key, group);
    }
    const values = group.byItem.get(score.itemId);
    if (values === undefined) group.byItem.set(score.itemId, [score.value]);
    else values.push(score.value);
  }

  const aggregates: GroupAggregate[] = [];
  const strataOf = new Map<GroupAggregate, GroupStrata>();
  for (const group of groups.values()) {
    const perTask = new Map<string, TaskValues>();
    for (const task of tasks) perTask.set(task, { values: [], missing: 0 });
    const nulls = new Map<string, number>();
    for (const [itemId, values] of group.byItem) {
      const task = taskOf.get(itemId) ?? '';
      const present = values.filter((value): value is number => value !== null);
      const bucket = perTask.get(task);
      if (bucket === undefined) continue;
      if (present.length > 0) bucket.values.push(mean(present));
      else nulls.set(task, (nulls.get(task) ?? 0) + 1);
    }
    let overallSum = 0;
    const taskAggregates = new Map<string, { n: number; sum: number; nulls: number }>();
    for (const task of tasks) {
      const values = perTask.get(task)?.values ?? [];
      overallSum = sequentialSum(values, overallSum);
      taskAggregates.set(task, {
        n: values.length,
        sum: sequentialSum(values),
        nulls: nulls.get(task) ?? 0,
      });
    }
    const aggregate: GroupAggregate = {
      sim: group.sim,
      source: group.source,
      metric: group.metric,
      tasks: taskAggregates,
      overallSum,
    };
    aggregates.push(aggregate);
    strataOf.set(aggregate, new Map(tasks.map((task) => [task, perTask.get(task)?.values ?? []])));
  }
  return cellsFromAggregates(aggregates, itemsPerTask, (group) =>
    groupIntervals(group, tasks, strataOf.get(group) ?? new Map(), options),
  );
}
