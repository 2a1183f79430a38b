import type { BenchRun, BenchRunMode, CellDelta, ScoreSelector } from '@terrarium/schema';
import { judgeLabel } from './format-bench';
import { metricLabel, orderTasks, SOURCE_LABELS } from './leaderboard';

export interface DeltaRow {
  sim: string;
  cells: CellDelta[];
}

/**
 * The deltas of one (source, metric) grouped per simulator, tasks in leaderboard order (overall,
 * macro, the rest). Comparisons may carry every score's cells; only the selected one is shown.
 * Every simulator of `simOrder` (the two runs' simulators) gets a row, with no cells when neither
 * run has this score for it, so that a simulator never vanishes without a word; none at all when
 * no cell has this score.
 */
export function deltaRows(
  cells: readonly CellDelta[],
  score: ScoreSelector,
  simOrder: readonly string[],
): DeltaRow[] {
  const bySim = new Map<string, CellDelta[]>();
  for (const cell of cells) {
    if (cell.source !== score.source || cell.metric !== score.metric) continue;
    bySim.set(cell.sim, [...(bySim.get(cell.sim) ?? []), cell]);
  }
  if (bySim.size === 0) return [];
  const sims = [
    ...new Set(simOrder),
    ...[...bySim.keys()].filter((sim) => !simOrder.includes(sim)).toSorted(),
  ];
  return sims.map((sim) => {
    const simCells = bySim.get(sim) ?? [];
    const order = orderTasks(simCells.map((cell) => cell.task));
    return {
      sim,
      cells: simCells.toSorted((a, b) => order.indexOf(a.task) - order.indexOf(b.task)),
    };
  });
}

export type DeltaDirection = 'better' | 'worse' | 'same' | 'unknown';

/** A change counts as better or worse only when its paired interval excludes 0. */
export function deltaDirection(cell: Pick<CellDelta, 'delta' | 'significant'>): DeltaDirection {
  if (cell.delta === null) return 'unknown';
  if (!cell.significant || cell.delta === 0) return 'same';
  return cell.delta > 0 ? 'better' : 'worse';
}

/** What a run says of which simulators it ran and whether a judge scored them. */
export type RunScorers = Pick<BenchRun, 'sims' | 'judge'>;

/**
 * Why a run has no cell of a simulator for the selected score, as the Δ column says it: the
 * simulator was not in the run, or it was and the run has no such scores (a run without a judge
 * has no judge scores at all). `which` is the run's place in the comparison.
 */
export function absenceText(
  run: RunScorers,
  which: 'older' | 'newer',
  sim: string,
  score: ScoreSelector,
): string {
  if (!run.sims.includes(sim)) return `not in the ${which} run`;
  if (score.source === 'judge' && run.judge === null)
    return `the ${which} run has no judge scores (it had no judge)`;
  return `the ${which} run has no ${SOURCE_LABELS[score.source]}: ${metricLabel(score)} scores`;
}

type RunSettings = Pick<
  BenchRun,
  'id' | 'createdAt' | 'benchVersion' | 'sims' | 'judge' | 'mode' | 'split' | 'status' | 'prompts'
>;

/** The two runs oldest first, whichever the page was opened from: "before" is always the older. */
export function orderRuns<T extends Pick<BenchRun, 'id' | 'createdAt'>>(a: T, b: T): [T, T] {
  if (a.createdAt !== b.createdAt) return a.createdAt < b.createdAt ? [a, b] : [b, a];
  return a.id <= b.id ? [a, b] : [b, a];
}

export interface SettingDiff {
  setting: string;
  before: string;
  after: string;
}

function modeText(mode: BenchRunMode): string {
  return mode.kind === 'open'
    ? 'open loop (real history)'
    : `closed loop (own predictions for the last ${mode.steps} turns)`;
}

/**
 * How a setting is read for the comparison: `shown` is what the page prints of each run, `same`
 * says whether the two runs agree (by default: they print the same).
 */
interface Setting {
  name: string;
  shown: (run: RunSettings) => string;
  same?: (before: RunSettings, after: RunSettings) => boolean;
}

/** Whether two lists hold the same members, in any order and however often each is listed. */
export function sameMembers(a: readonly string[], b: readonly string[]): boolean {
  const [setA, setB] = [new Set(a), new Set(b)];
  return setA.size === setB.size && [...setA].every((member) => setB.has(member));
}

/** Every setting in which two runs differ, so a Δ is never read without what changed besides. */
export function settingDiffs(before: RunSettings, after: RunSettings): SettingDiff[] {
  const settings: Setting[] = [
    { name: 'Bench version', shown: (run) => `v${run.benchVersion}` },
    // The simulators are a set: a run lists them in the order it was started with, which changes
    // no result, so `replay, retrieval` and `retrieval, replay` are the same setting.
    {
      name: 'Simulators',
      shown: (run) => run.sims.join(', '),
      same: (a, b) => sameMembers(a.sims, b.sims),
    },
    { name: 'Mode', shown: (run) => modeText(run.mode) },
    { name: 'Split', shown: (run) => run.split },
    { name: 'Judge', shown: (run) => (run.judge === null ? 'none' : judgeLabel(run.judge)) },
    // The full hash: two folders must never read as the same one. The hash covers the files'
    // paths in path order, so the folder's file list needs no comparison of its own.
    {
      name: 'Prompts',
      shown: (run) =>
        run.prompts === null ? 'Terrarium prompts' : `prompt folder ${run.prompts.hash}`,
    },
    { name: 'Status', shown: (run) => run.status },
  ];
  return settings.flatMap(({ name, shown, same }) => {
    const [was, is] = [shown(before), shown(after)];
    const unchanged = same === undefined ? was === is : same(before, after);
    return unchanged ? [] : [{ setting: name, before: was, after: is }];
  });
}

/**
 * The Δ the table prints: the difference of the two means as printed (each to a tenth), so that
 * "50.9 → 51.0" reads +0.1 and never 0.0. Significance is still judged on the intervals.
 */
export function shownDelta(cell: Pick<CellDelta, 'before' | 'after'>): number | null {
  const before = cell.before?.mean;
  const after = cell.after?.mean;
  if (typeof before !== 'number' || typeof after !== 'number') return null;
  return Number(after.toFixed(1)) - Number(before.toFixed(1));
}

/** How a Δ reads: significant only when the 95% interval of the paired difference excludes 0. */
export function deltaSignificance(
  cell: Pick<CellDelta, 'delta' | 'significant' | 'deltaLow' | 'sameItems' | 'before' | 'after'>,
):
  'significant' | 'not significant' | 'no interval' | 'only before' | 'only after' | 'other items' {
  // A simulator or task one run does not have: nothing to compare, which is not a missing interval.
  if (cell.after === null) return 'only before';
  if (cell.before === null) return 'only after';
  if (cell.delta === null) return 'no interval';
  if (!cell.sameItems) return 'other items';
  if (cell.significant) return 'significant';
  return cell.deltaLow === null ? 'no interval' : 'not significant';
}
