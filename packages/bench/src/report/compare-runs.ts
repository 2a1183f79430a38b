import type {
  BenchItem,
  CellDelta,
  ItemDelta,
  ItemScore,
  LeaderboardCell,
  RunComparison as SchemaRunComparison,
  ScoreSource,
} from '@terrarium/schema';
import { canonicalJson, compareCodeUnits } from '../hash';
import { leaderboard, type LeaderboardOptions } from './leaderboard';

/** The scores of one bench run, with the items they are about. */
export interface RunScores {
  scores: readonly ItemScore[];
  items: readonly Pick<BenchItem, 'id' | 'task'>[];
}

/** Cells and items of two runs side by side (the schema's RunComparison without the runs). */
export type RunComparison = Omit<SchemaRunComparison, 'before' | 'after'>;

export interface CompareOptions extends LeaderboardOptions {
  /** The metric whose items are listed (default: the rule `content` score). */
  focus?: { source: ScoreSource; metric: string };
  /** Items listed per direction (default 10). */
  top?: number;
}

function cellKey(cell: Pick<LeaderboardCell, 'sim' | 'task' | 'source' | 'metric'>): string {
  return canonicalJson([cell.sim, cell.task, cell.source, cell.metric]);
}

function separated(a: LeaderboardCell | undefined, b: LeaderboardCell | undefined): boolean {
  if (a?.ciLow == null || a.ciHigh == null || b?.ciLow == null || b.ciHigh == null) return false;
  return a.ciHigh < b.ciLow || b.ciHigh < a.ciLow;
}

/** Per-item means of one (source, metric), keyed by sim and item. */
function itemValues(
  scores: readonly ItemScore[],
  focus: { source: ScoreSource; metric: string },
): Map<string, { sim: string; itemId: string; value: number }> {
  const sums = new Map<string, { sim: string; itemId: string; sum: number; count: number }>();
  for (const score of scores) {
    if (score.source !== focus.source || score.metric !== focus.metric || score.value === null) {
      continue;
    }
    const key = canonicalJson([score.sim, score.itemId]);
    const entry = sums.get(key) ?? { sim: score.sim, itemId: score.itemId, sum: 0, count: 0 };
    entry.sum += score.value;
    entry.count++;
    sums.set(key, entry);
  }
  return new Map(
    [...sums].map(([key, { sim, itemId, sum, count }]) => [
      key,
      { sim, itemId, value: sum / count },
    ]),
  );
}

/**
 * What changed from run `a` to run `b`: per (sim, task, source, metric) the difference of means and
 * whether the intervals separate; and the items whose focus score moved most either way.
 */
function byId(x: ItemDelta, y: ItemDelta): number {
  return compareCodeUnits(x.sim, y.sim) || compareCodeUnits(x.itemId, y.itemId);
}

export function compareRuns(a: RunScores, b: RunScores, options: CompareOptions): RunComparison {
  const before = leaderboard(a.scores, a.items, options);
  const after = leaderboard(b.scores, b.items, options);
  const beforeByKey = new Map(before.map((cell) => [cellKey(cell), cell]));
  const afterByKey = new Map(after.map((cell) => [cellKey(cell), cell]));
  const keys = new Set([...beforeByKey.keys(), ...afterByKey.keys()]);
  const cells: CellDelta[] = [];
  for (const key of keys) {
    const old = beforeByKey.get(key);
    const fresh = afterByKey.get(key);
    const ref = fresh ?? old;
    if (ref === undefined) continue;
    const oldMean = old?.mean ?? null;
    const newMean = fresh?.mean ?? null;
    cells.push({
      sim: ref.sim,
      task: ref.task,
      source: ref.source,
      metric: ref.metric,
      before: old ?? null,
      after: fresh ?? null,
      delta: oldMean === null || newMean === null ? null : newMean - oldMean,
      separated: separated(old, fresh),
    });
  }
  cells.sort(
    (x, y) =>
      compareCodeUnits(x.sim, y.sim) ||
      compareCodeUnits(x.source, y.source) ||
      compareCodeUnits(x.metric, y.metric) ||
      compareCodeUnits(x.task, y.task),
  );

  const focus = options.focus ?? { source: 'rule', metric: 'content' };
  const oldValues = itemValues(a.scores, focus);
  const newValues = itemValues(b.scores, focus);
  const taskOf = new Map([...a.items, ...b.items].map((item) => [item.id, item.task]));
  const deltas: ItemDelta[] = [];
  for (const [key, { sim, itemId, value: afterValue }] of newValues) {
    const beforeValue = oldValues.get(key)?.value;
    if (beforeValue === undefined) continue;
    deltas.push({
      itemId,
      task: taskOf.get(itemId) ?? '',
      sim,
      before: beforeValue * 100,
      after: afterValue * 100,
      delta: (afterValue - beforeValue) * 100,
    });
  }
  const top = options.top ?? 10;
  const improved = deltas
    .filter((delta) => delta.delta > 0)
    .toSorted((x, y) => y.delta - x.delta || byId(x, y))
    .slice(0, top);
  const regressed = deltas
    .filter((delta) => delta.delta < 0)
    .toSorted((x, y) => x.delta - y.delta || byId(x, y))
    .slice(0, top);
  return { cells, improved, regressed };
}
