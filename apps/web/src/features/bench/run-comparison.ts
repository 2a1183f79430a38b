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

/** Every setting in which two runs differ, so a Δ is never read without what changed besides. */
export function settingDiffs(before: RunSettings, after: RunSettings): SettingDiff[] {
  const settings: [string, (run: RunSettings) => string][] = [
    ['Bench version', (run) => `v${run.benchVersion}`],
    ['Simulators', (run) => run.sims.join(', ')],
    ['Mode', (run) => modeText(run.mode)],
    ['Split', (run) => run.split],
    ['Judge', (run) => (run.judge === null ? 'none' : judgeLabel(run.judge))],
    // The full hash: two folders must never read as the same one.
    [
      'Prompts',
      (run) => (run.prompts === null ? 'Terrarium prompts' : `prompt folder ${run.prompts.hash}`),
    ],
    ['Status', (run) => run.status],
  ];
  return settings.flatMap(([setting, read]) => {
    const [was, is] = [read(before), read(after)];
    return was === is ? [] : [{ setting, before: was, after: is }];
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
