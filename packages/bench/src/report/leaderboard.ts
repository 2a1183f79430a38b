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

  const cells: LeaderboardCell[] = [];
  const sortedGroups = [...groups.values()].toSorted(
    (a, b) =>
      compareCodeUnits(a.sim, b.sim) ||
      compareCodeUnits(a.source, b.source) ||
      compareCodeUnits(a.metric, b.metric),
  );
  for (const group of sortedGroups) {
    const perTask = new Map<string, TaskValues>();
    for (const task of tasks) perTask.set(task, { values: [], missing: 0 });
    const notApplicable = new Map<string, number>();
    for (const [itemId, values] of group.byItem) {
      const task = taskOf.get(itemId) ?? '';
      const present = values.filter((value): value is number => value !== null);
      const bucket = perTask.get(task);
      if (bucket === undefined) continue;
      if (present.length > 0) bucket.values.push(mean(present));
      else if (group.source === 'rule') notApplicable.set(task, (notApplicable.get(task) ?? 0) + 1);
    }
    for (const [task, bucket] of perTask) {
      bucket.missing =
        (itemsPerTask.get(task) ?? 0) - bucket.values.length - (notApplicable.get(task) ?? 0);
    }
    const seedBase = [options.seed, group.sim, group.source, group.metric];
    const cell = (task: string, strata: number[][], missing: number, macro: boolean) => {
      const present = strata.filter((values) => values.length > 0);
      const n = present.reduce((sum, values) => sum + values.length, 0);
      const point =
        n === 0
          ? null
          : macro
            ? mean(present.map((values) => mean(values))) * 100
            : mean(present.flat()) * 100;
      const interval = bootstrapInterval(
        macro ? present : [present.flat()],
        macro ? plainMean : weightedMean,
        options.bootstrap,
        canonicalJson([...seedBase, task]),
      );
      cells.push({
        sim: group.sim,
        task,
        source: group.source,
        metric: group.metric,
        mean: point,
        ciLow: interval.low,
        ciHigh: interval.high,
        n,
        missing,
      });
    };
    let totalMissing = 0;
    for (const task of tasks) {
      const bucket = perTask.get(task) ?? { values: [], missing: 0 };
      totalMissing += bucket.missing;
      cell(task, [bucket.values], bucket.missing, false);
    }
    const strata = tasks.map((task) => perTask.get(task)?.values ?? []);
    cell(OVERALL_TASK, strata, totalMissing, false);
    cell(MACRO_TASK, strata, totalMissing, true);
  }
  return cells;
}
