import {
  gridMean,
  scoreGridUnits,
  type BenchItem,
  type ItemScore,
  type LeaderboardCell,
  type ScoreSource,
} from '@terrarium/schema';
import { canonicalJson, compareCodeUnits, seedFromText } from '../hash';

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

function mean(values: readonly number[]): number {
  let sum = 0;
  for (const value of values) sum += value;
  return sum / values.length;
}

/** The value at quantile `p` of an ascending array (nearest rank, as the bootstrap reads it). */
function percentile(sorted: Float64Array, p: number): number {
  const at = Math.min(sorted.length - 1, Math.max(0, Math.round(p * (sorted.length - 1))));
  return sorted[at] ?? Number.NaN;
}

/** A 95% interval ×100; both ends null where there is none. */
export interface Interval {
  low: number | null;
  high: number | null;
}

const NO_INTERVAL: Interval = { low: null, high: null };

/** One (simulator, source, metric)'s scores reduced to what its cells need, per task. */
export interface GroupAggregate {
  sim: string;
  source: ScoreSource;
  metric: string;
  /**
   * Per task: items with a value (n), the sum of their values in grid units (`scoreGridUnits`,
   * exact in any order of addition) and items whose value is null.
   */
  tasks: ReadonlyMap<string, { n: number; gridSum: number; nulls: number }>;
}

/** A group's values per task, in any order: what the bootstrap resamples. */
export type GroupStrata = ReadonlyMap<string, ArrayLike<number>>;

/**
 * The seed text of every group's bootstrap: one for all groups, so two groups with the same values
 * (a rule set that is the content rule alone, beside `content`) get the same intervals, not two
 * that differ by resampling noise alone.
 */
function bootstrapSeedText(seed: number) {
  return canonicalJson(['leaderboard-bootstrap', seed]);
}

function intervalOf(estimates: Float64Array): Interval {
  const sorted = estimates.toSorted();
  return { low: percentile(sorted, 0.025) * 100, high: percentile(sorted, 0.975) * 100 };
}

/**
 * The 95% percentile bootstrap intervals of one group's cells (each task, `overall`, `macro`), all
 * from one stratified resampling: a resample draws each task's items with replacement, as many as
 * the task has (a bench fixes how many items each task holds, so the overall interval is the
 * stratified one), and gives every cell its statistic: the task's mean, the item-weighted overall
 * mean and the mean of the task means. Each task's values are resampled in ascending order, so the
 * intervals depend on the values alone, never on the order a store or memory lists them in, nor
 * on the group's name; the generator is seeded alike for every group, so a run's intervals are the
 * same on every computation and equal values give equal intervals.
 * A cell over fewer than 2 values has no interval.
 */
export function groupIntervals(
  tasks: readonly string[],
  strata: GroupStrata,
  options: LeaderboardOptions,
): Map<string, Interval> {
  const resamples = Math.max(0, Math.trunc(options.bootstrap));
  const sorted = tasks.map((task) => Float64Array.from(strata.get(task) ?? []).toSorted());
  const total = sorted.reduce((sum, values) => sum + values.length, 0);
  const present = sorted.filter((values) => values.length > 0).length;
  const intervals = new Map<string, Interval>();
  if (resamples === 0 || total < 2) {
    for (const task of [...tasks, OVERALL_TASK, MACRO_TASK]) intervals.set(task, NO_INTERVAL);
    return intervals;
  }
  const taskEstimates = sorted.map(() => new Float64Array(resamples));
  const overall = new Float64Array(resamples);
  const macro = new Float64Array(resamples);
  // Mulberry32 (`seededRandom` in hash.ts) written out here: the loop below runs resamples ×
  // items times, and the closure call measured 2-4× the inlined step (a test pins both to the
  // same sequence).
  let state = seedFromText(bootstrapSeedText(options.seed)) >>> 0;
  for (let r = 0; r < resamples; r++) {
    let weightedSum = 0;
    let meanSum = 0;
    for (let t = 0; t < sorted.length; t++) {
      const values = sorted[t];
      const estimates = taskEstimates[t];
      if (values === undefined || estimates === undefined || values.length === 0) continue;
      const n = values.length;
      let sum = 0;
      for (let i = 0; i < n; i++) {
        state = (state + 0x6d2b79f5) >>> 0;
        let x = state;
        x = Math.imul(x ^ (x >>> 15), x | 1);
        x ^= x + Math.imul(x ^ (x >>> 7), x | 61);
        const uniform = ((x ^ (x >>> 14)) >>> 0) / 4294967296;
        sum += values[Math.floor(uniform * n)] ?? 0;
      }
      estimates[r] = sum / n;
      weightedSum += sum;
      meanSum += sum / n;
    }
    overall[r] = weightedSum / total;
    macro[r] = meanSum / present;
  }
  tasks.forEach((task, t) => {
    const estimates = taskEstimates[t];
    const enough = (sorted[t]?.length ?? 0) >= 2 && estimates !== undefined;
    intervals.set(task, enough ? intervalOf(estimates) : NO_INTERVAL);
  });
  intervals.set(OVERALL_TASK, intervalOf(overall));
  intervals.set(MACRO_TASK, intervalOf(macro));
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
  intervalsOf: (group: GroupAggregate) => ReadonlyMap<string, Interval> | null,
): LeaderboardCell[] {
  const tasks = [...itemsPerTask.keys()].toSorted(compareCodeUnits);
  const cells: LeaderboardCell[] = [];
  for (const group of groups.toSorted(compareGroups)) {
    const intervals = intervalsOf(group);
    const push = (task: string, point: number | null, n: number, missing: number) => {
      // No mean, no interval: a bootstrap over the tasks that have scores is not this cell's.
      const interval = point === null ? undefined : intervals?.get(task);
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
    let totalUnits = 0;
    let totalMissing = 0;
    const taskMeans: number[] = [];
    let unscoredTasks = 0;
    for (const task of tasks) {
      const entry = group.tasks.get(task) ?? { n: 0, gridSum: 0, nulls: 0 };
      // A null rule metric means "does not apply": neither scored nor missing.
      const notApplicable = group.source === 'rule' ? entry.nulls : 0;
      const missing = (itemsPerTask.get(task) ?? 0) - entry.n - notApplicable;
      const taskMean = entry.n === 0 ? null : gridMean(entry.gridSum, entry.n);
      if (taskMean !== null) taskMeans.push(taskMean);
      else if (missing > 0) unscoredTasks += 1;
      totalN += entry.n;
      totalUnits += entry.gridSum;
      totalMissing += missing;
      push(task, taskMean === null ? null : taskMean * 100, entry.n, missing);
    }
    push(
      OVERALL_TASK,
      totalN === 0 ? null : gridMean(totalUnits, totalN) * 100,
      totalN,
      totalMissing,
    );
    // Every task weighs the same only if every task is in: a task with items to score and none
    // scored (a run canceled early, a simulator failing on one benchmark) leaves no macro mean,
    // rather than a mean of the others that reads as comparable with a full row's. Tasks where a
    // rule does not apply (n/a, not missing) stay out, as before.
    push(
      MACRO_TASK,
      totalN === 0 || unscoredTasks > 0 ? null : mean(taskMeans) * 100,
      totalN,
      totalMissing,
    );
  }
  return cells;
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
    const perTask = new Map<string, number[]>();
    for (const task of tasks) perTask.set(task, []);
    const nulls = new Map<string, number>();
    for (const [itemId, values] of group.byItem) {
      const task = taskOf.get(itemId) ?? '';
      const present = values.filter((value): value is number => value !== null);
      const bucket = perTask.get(task);
      if (bucket === undefined) continue;
      if (present.length > 0) bucket.push(mean(present));
      else nulls.set(task, (nulls.get(task) ?? 0) + 1);
    }
    const taskAggregates = new Map<string, { n: number; gridSum: number; nulls: number }>();
    for (const task of tasks) {
      const values = perTask.get(task) ?? [];
      let gridSum = 0;
      for (const value of values) gridSum += scoreGridUnits(value);
      taskAggregates.set(task, { n: values.length, gridSum, nulls: nulls.get(task) ?? 0 });
    }
    const aggregate: GroupAggregate = {
      sim: group.sim,
      source: group.source,
      metric: group.metric,
      tasks: taskAggregates,
    };
    aggregates.push(aggregate);
    strataOf.set(aggregate, perTask);
  }
  return cellsFromAggregates(aggregates, itemsPerTask, (group) =>
    groupIntervals(tasks, strataOf.get(group) ?? new Map(), options),
  );
}
