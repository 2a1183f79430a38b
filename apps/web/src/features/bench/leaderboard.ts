import {
  JUDGE_DIMENSIONS,
  SCORE_SOURCES,
  type LeaderboardCell,
  type ScoreSelector,
  type ScoreSource,
} from '@terrarium/schema';
import { metricDefinition as definitionOf } from '@terrarium/fidelity';
import { metricLabel as ruleMetricLabel, orderMetrics } from '../compare/summary';

/** The sample-weighted mean over every item of the run. */
export const OVERALL_TASK = 'overall';
/** The mean of the per-task means: every task weighs the same. */
export const MACRO_TASK = 'macro';

export interface MetricGroup {
  source: ScoreSource;
  metrics: string[];
}

export const SOURCE_LABELS: Record<ScoreSource, string> = {
  rule: 'Rule metrics',
  judge: 'Judge',
  human: 'Human',
};

function judgeRank(metric: string): number {
  const index = JUDGE_DIMENSIONS.findIndex((dimension) => dimension === metric);
  return index === -1 ? JUDGE_DIMENSIONS.length : index;
}

function orderWithinSource(source: ScoreSource, metrics: Iterable<string>): string[] {
  if (source === 'rule') return orderMetrics(metrics);
  const unique = [...new Set(metrics)];
  if (source === 'judge') {
    return unique.toSorted((a, b) => judgeRank(a) - judgeRank(b) || a.localeCompare(b));
  }
  return unique.toSorted((a, b) => a.localeCompare(b));
}

/**
 * The metrics the cells hold, one group per source in the fixed order rule, judge, human, so that a
 * switcher never puts a judge dimension and a rule metric in one list.
 */
export function metricGroups(
  cells: readonly Pick<LeaderboardCell, 'source' | 'metric'>[],
): MetricGroup[] {
  return SCORE_SOURCES.flatMap((source) => {
    const metrics = orderWithinSource(
      source,
      cells.filter((cell) => cell.source === source).map((cell) => cell.metric),
    );
    return metrics.length === 0 ? [] : [{ source, metrics }];
  });
}

export function metricLabel(score: ScoreSelector): string {
  if (score.source === 'rule') return ruleMetricLabel(score.metric);
  return score.metric.charAt(0).toUpperCase() + score.metric.slice(1);
}

function taskRank(task: string): number {
  return task === OVERALL_TASK ? 0 : task === MACRO_TASK ? 1 : 2;
}

/** `overall` and `macro` first, then the tasks by name. */
export function orderTasks(tasks: Iterable<string>): string[] {
  return [...new Set(tasks)].toSorted((a, b) => taskRank(a) - taskRank(b) || a.localeCompare(b));
}

export interface LeaderboardGrid {
  sims: string[];
  tasks: string[];
  cellAt(sim: string, task: string): LeaderboardCell | null;
}

/**
 * The cells of one (source, metric) as a simulators × tasks grid. Simulators keep the run's order
 * (the order they were asked for); any simulator only the cells know comes after them.
 */
export function leaderboardGrid(
  cells: readonly LeaderboardCell[],
  score: ScoreSelector,
  simOrder: readonly string[],
): LeaderboardGrid {
  const selected = cells.filter(
    (cell) => cell.source === score.source && cell.metric === score.metric,
  );
  const bySimTask = new Map(selected.map((cell) => [`${cell.sim}\n${cell.task}`, cell]));
  const present = new Set(selected.map((cell) => cell.sim));
  const sims = [
    ...simOrder.filter((sim) => present.has(sim)),
    ...[...present].filter((sim) => !simOrder.includes(sim)).toSorted(),
  ];
  return {
    sims,
    tasks: orderTasks(selected.map((cell) => cell.task)),
    cellAt: (sim, task) => bySimTask.get(`${sim}\n${task}`) ?? null,
  };
}

/** Whether the selector names a score the cells hold. */
export function hasScore(cells: readonly LeaderboardCell[], score: ScoreSelector): boolean {
  return cells.some((cell) => cell.source === score.source && cell.metric === score.metric);
}

function clampPercent(value: number): number {
  return Math.min(100, Math.max(0, value));
}

/** Positions (0-100, clamped) of a cell's interval and mean on a 0-100 bar. */
export function intervalBar(
  cell: Pick<LeaderboardCell, 'mean' | 'ciLow' | 'ciHigh'>,
): { low: number; high: number; mean: number } | null {
  if (cell.mean === null) return null;
  return {
    low: clampPercent(cell.ciLow ?? cell.mean),
    high: clampPercent(cell.ciHigh ?? cell.mean),
    mean: clampPercent(cell.mean),
  };
}

export interface SourceScores {
  source: ScoreSource;
  scores: { metric: string; value: number | null }[];
}

/**
 * An item's `source:metric` → 0-100 scores split by source, each in its canonical metric order;
 * keys without a known source are not scores of this run and are left out.
 */
export function scoresBySource(scores: Readonly<Record<string, number | null>>): SourceScores[] {
  const entries = Object.entries(scores).flatMap(([key, value]) => {
    const colon = key.indexOf(':');
    const source = SCORE_SOURCES.find((candidate) => candidate === key.slice(0, colon));
    return source === undefined ? [] : [{ source, metric: key.slice(colon + 1), value }];
  });
  return SCORE_SOURCES.flatMap((source) => {
    const own = entries.filter((entry) => entry.source === source);
    const order = orderWithinSource(
      source,
      own.map((entry) => entry.metric),
    );
    const scoresInOrder = order.map((metric) => ({
      metric,
      value: own.find((entry) => entry.metric === metric)?.value ?? null,
    }));
    return own.length === 0 ? [] : [{ source, scores: scoresInOrder }];
  });
}

/** A one-line definition of a score for hover text (the table in packages/fidelity); null when none is known. */
export function metricDefinition(score: ScoreSelector): string | null {
  return definitionOf(score.source, score.metric)?.definition ?? null;
}

/**
 * What the leaderboard says of a run still going. Its cells are read every few seconds while the
 * progress bar streams, so a count of units here would trail the bar's and read as a second,
 * different count of the same thing: the units recorded are counted in one place, the bar, and
 * this note says only what the table is (`hasCells`: some cell has the selected score).
 */
export function partialResultsText(score: ScoreSelector, hasCells: boolean): string {
  return hasCells
    ? "Partial results as of the table's last refresh: means of the units scored by then, each cell's n counting them (the progress bar counts live). 95% intervals once the run ends."
    : `No ${score.source} scores for ${score.metric} among the units recorded by the table's last refresh (the progress bar counts live).`;
}
