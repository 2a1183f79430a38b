import type {
  BenchItem,
  CellDelta,
  ItemDelta,
  ItemScore,
  LeaderboardCell,
  RunComparison as SchemaRunComparison,
  ScoreSource,
} from '@terrarium/schema';
import { actionText } from '@terrarium/fidelity';
import { canonicalJson, compareCodeUnits } from '../hash';
import { groupIntervals, leaderboard, type Interval, type LeaderboardOptions } from './leaderboard';

/** The scores of one bench run, with the items they are about. */
export interface RunScores {
  scores: readonly ItemScore[];
  items: readonly (Pick<BenchItem, 'id'> & ItemPlace)[];
}

/** What names an item in a list of deltas: its task, trajectory, turn and action. */
export type ItemPlace = Pick<BenchItem, 'task' | 'origin' | 'turnIndex' | 'totalTurns' | 'action'>;

/** A delta as `itemDeltas` finds it, before its item's place is added. */
export type ItemMove = Omit<
  ItemDelta,
  'task' | 'trajectory' | 'turnIndex' | 'totalTurns' | 'action'
>;

const ACTION_SHOWN = 120;

/** A delta with its item's place (an item no bench holds any more: its task unknown, no name). */
export function placeDelta(delta: ItemMove, item: ItemPlace | undefined): ItemDelta {
  return {
    ...delta,
    task: item?.task ?? '',
    trajectory: item?.origin.trajectory ?? null,
    turnIndex: item?.turnIndex ?? 0,
    totalTurns: item?.totalTurns ?? 1,
    action: item === undefined ? '' : actionText(item.action).slice(0, ACTION_SHOWN),
  };
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

/** The paired intervals of one score's differences, by simulator and task (see `pairedDeltas`). */
export interface PairedDeltas {
  score: { source: ScoreSource; metric: string };
  intervals: ReadonlyMap<string, Interval>;
}

function pairKey(sim: string, task: string): string {
  return `${sim}\0${task}`;
}

/**
 * The 95% intervals of the difference after − before of one score, per simulator and task (and
 * `overall`, `macro`), from a paired bootstrap: the items both runs scored are resampled together,
 * each task's differences drawn with replacement as the leaderboard's stratified bootstrap draws
 * its values (`groupIntervals`, same seed). Two runs over the same items move together item by
 * item, so the difference's interval is far narrower than the two runs' intervals side by side;
 * whether those overlap says little about whether the difference is real.
 */
export function pairedDeltas(
  score: { source: ScoreSource; metric: string },
  before: Iterable<FocusValue>,
  after: Iterable<FocusValue>,
  taskOf: ReadonlyMap<string, string>,
  options: LeaderboardOptions,
): PairedDeltas {
  const old = new Map<string, number>();
  for (const { sim, itemId, value } of before) old.set(pairKey(sim, itemId), value);
  const bySim = new Map<string, Map<string, number[]>>();
  for (const { sim, itemId, value } of after) {
    const previous = old.get(pairKey(sim, itemId));
    const task = taskOf.get(itemId);
    if (previous === undefined || task === undefined) continue;
    let strata = bySim.get(sim);
    if (strata === undefined) bySim.set(sim, (strata = new Map()));
    let values = strata.get(task);
    if (values === undefined) strata.set(task, (values = []));
    values.push(value - previous);
  }
  const intervals = new Map<string, Interval>();
  for (const [sim, strata] of bySim) {
    const tasks = [...strata.keys()].toSorted(compareCodeUnits);
    for (const [task, interval] of groupIntervals(tasks, strata, options))
      intervals.set(pairKey(sim, task), interval);
  }
  return { score, intervals };
}

/**
 * Per (sim, task, source, metric) of two runs' leaderboards: the difference of means and, for the
 * compared score (`paired`), the 95% interval of the difference and whether it excludes 0, which
 * counts only over the same items. The cells are each run's own leaderboard cells, so a comparison
 * shows the very numbers (and intervals) each run's page shows.
 */
export function compareCells(
  before: readonly LeaderboardCell[],
  after: readonly LeaderboardCell[],
  /** False when the runs are over different items (another bench version or split). */
  sameBenchItems = true,
  paired: PairedDeltas | null = null,
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
    const interval =
      sameItems &&
      paired !== null &&
      paired.score.source === ref.source &&
      paired.score.metric === ref.metric
        ? (paired.intervals.get(pairKey(ref.sim, ref.task)) ?? null)
        : null;
    const deltaLow = interval?.low ?? null;
    const deltaHigh = interval?.high ?? null;
    cells.push({
      sim: ref.sim,
      task: ref.task,
      source: ref.source,
      metric: ref.metric,
      before: old ?? null,
      after: fresh ?? null,
      delta: oldMean === null || newMean === null ? null : newMean - oldMean,
      sameItems,
      deltaLow,
      deltaHigh,
      significant: deltaLow !== null && deltaHigh !== null && (deltaLow > 0 || deltaHigh < 0),
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
): { improved: ItemMove[]; regressed: ItemMove[] } {
  const old = new Map<string, number>();
  for (const { sim, itemId, value } of before) old.set(`${sim}\0${itemId}`, value);
  const deltas: ItemMove[] = [];
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
  const focus = options.focus ?? { source: 'rule', metric: 'content' };
  const taskOf = new Map([...a.items, ...b.items].map((item) => [item.id, item.task]));
  const before = focusValues(a.scores, focus);
  const after = focusValues(b.scores, focus);
  const cells = compareCells(
    leaderboard(a.scores, a.items, options),
    leaderboard(b.scores, b.items, options),
    true,
    pairedDeltas(focus, before, after, taskOf, options),
  );
  const moved = itemDeltas(before, after, options.top ?? 10);
  const itemOf = new Map([...a.items, ...b.items].map((item) => [item.id, item]));
  const placed = (delta: ItemMove) => placeDelta(delta, itemOf.get(delta.itemId));
  return {
    cells,
    improved: moved.improved.map(placed),
    regressed: moved.regressed.map(placed),
  };
}
