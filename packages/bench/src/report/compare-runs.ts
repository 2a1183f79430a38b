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

/** One prediction's value of the compared score, on [0, 1]. */
export interface FocusValue {
  sim: string;
  itemId: string;
  value: number;
}

/** The focus score's values in a run's scores, one per (sim, item). */
export function focusValues(
  scores: readonly ItemScore[],
  focus: { source: ScoreSource; metric: string },
): FocusValue[] {
  return scores.flatMap((score) =>
    score.source === focus.source && score.metric === focus.metric && score.value !== null
      ? [{ sim: score.sim, itemId: score.itemId, value: score.value }]
      : [],
  );
}

function byId(x: Pick<ItemDelta, 'sim' | 'itemId'>, y: Pick<ItemDelta, 'sim' | 'itemId'>): number {
  return compareCodeUnits(x.sim, y.sim) || compareCodeUnits(x.itemId, y.itemId);
}

/**
 * Per (sim, task, source, metric) of two runs' leaderboards: the difference of means and whether
 * the intervals separate, which counts only over the same items. The cells are each run's own leaderboard cells, so a comparison shows
 * the very numbers (and intervals) each run's page shows.
 */
export function compareCells(
  before: readonly LeaderboardCell[],
  after: readonly LeaderboardCell[],
  /** False when the runs are over different items (another bench version or split). */
  sameBenchItems = true,
): CellDelta[] {
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
    const sameItems =
      sameBenchItems &&
      old !== undefined &&
      fresh !== undefined &&
      old.n === fresh.n &&
      old.missing === fresh.missing;
    cells.push({
      sim: ref.sim,
      task: ref.task,
      source: ref.source,
      metric: ref.metric,
      before: old ?? null,
      after: fresh ?? null,
      delta: oldMean === null || newMean === null ? null : newMean - oldMean,
      sameItems,
      separated: sameItems && separated(old, fresh),
    });
  }
  return cells.toSorted(
    (x, y) =>
      compareCodeUnits(x.sim, y.sim) ||
      compareCodeUnits(x.source, y.source) ||
      compareCodeUnits(x.metric, y.metric) ||
      compareCodeUnits(x.task, y.task),
  );
}

/** The predictions whose focus score moved most either way, `top` each, without their tasks. */
export function itemDeltas(
  before: Iterable<FocusValue>,
  after: Iterable<FocusValue>,
  top: number,
): { improved: Omit<ItemDelta, 'task'>[]; regressed: Omit<ItemDelta, 'task'>[] } {
  const old = new Map<string, number>();
  for (const { sim, itemId, value } of before) old.set(`${sim}\0${itemId}`, value);
  const deltas: Omit<ItemDelta, 'task'>[] = [];
  for (const { sim, itemId, value } of after) {
    const previous = old.get(`${sim}\0${itemId}`);
    if (previous === undefined) continue;
    deltas.push({
      itemId,
      sim,
      before: previous * 100,
      after: value * 100,
      delta: (value - previous) * 100,
    });
  }
  return {
    improved: deltas
      .filter((delta) => delta.delta > 0)
      .toSorted((x, y) => y.delta - x.delta || byId(x, y))
      .slice(0, top),
    regressed: deltas
      .filter((delta) => delta.delta < 0)
      .toSorted((x, y) => x.delta - y.delta || byId(x, y))
      .slice(0, top),
  };
}

/**
 * What changed from run `a` to run `b`, both held in memory: `compareCells` over their
 * leaderboards and the items whose focus score moved most either way.
 */
export function compareRuns(a: RunScores, b: RunScores, options: CompareOptions): RunComparison {
  const cells = compareCells(
    leaderboard(a.scores, a.items, options),
    leaderboard(b.scores, b.items, options),
  );
  const focus = options.focus ?? { source: 'rule', metric: 'content' };
  const moved = itemDeltas(
    focusValues(a.scores, focus),
    focusValues(b.scores, focus),
    options.top ?? 10,
  );
  const taskOf = new Map([...a.items, ...b.items].map((item) => [item.id, item.task]));
  const withTask = (delta: Omit<ItemDelta, 'task'>): ItemDelta => ({
    ...delta,
    task: taskOf.get(delta.itemId) ?? '',
  });
  return {
    cells,
    improved: moved.improved.map(withTask),
    regressed: moved.regressed.map(withTask),
  };
}
