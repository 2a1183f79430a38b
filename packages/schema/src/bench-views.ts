import { z } from 'zod';
import { JudgeSides } from './judge-sides';
import { BenchManifest, BenchRun, LeaderboardCell, ScoreSource } from './bench';
import { Domain, Observation } from './trajectory';

/** A bench as listed: its manifest, its store id, its splits' sizes and how many runs it has. */
export const BenchSummary = BenchManifest.extend({
  id: z.string(),
  runs: z.number().int().nonnegative(),
  /** Items per split: a run scores one split, so its item count is one of these. */
  splits: z.object({ test: z.number().int().nonnegative(), dev: z.number().int().nonnegative() }),
});
export type BenchSummary = z.infer<typeof BenchSummary>;

/** A simulator's failed predictions in a run: never scored, so no cell counts them. */
export const SimFailures = z.object({
  sim: z.string(),
  failed: z.number().int().positive(),
  /** The error of its first failed item (by item id), as an example of why. */
  example: z.string(),
});
export type SimFailures = z.infer<typeof SimFailures>;

/**
 * A simulator's items on which the judge gave no verdict (a request failed, or no judging's answer
 * could be read): their judge scores are missing, so a judge that never answers in the expected
 * form shows here, not as a run that went well.
 */
export const JudgeGaps = z.object({
  sim: z.string(),
  /** The judge metric whose value is missing: `overall` (score mode) or `turing-fooled`. */
  metric: z.string(),
  /** Items without a verdict (named for the unreadable answers; a failed request counts too). */
  unreadable: z.number().int().positive(),
  /** Out of this many items the judge was asked about. */
  asked: z.number().int().positive(),
  /** The first such item's error (by item id): the request's failure or the parse error. */
  example: z.string(),
});
export type JudgeGaps = z.infer<typeof JudgeGaps>;

export const Leaderboard = z.object({
  run: BenchRun,
  cells: z.array(LeaderboardCell),
  /** Per simulator with failed predictions, how many and an example of why. */
  failures: z.array(SimFailures),
  /** Per simulator on some of whose items the judge gave no verdict. */
  judgeGaps: z.array(JudgeGaps),
  /**
   * A pairwise judge's pairs not asked about yet (it judges after the run: `bench run` asks at
   * the end, the run page's button and `bench retry` ask for what is left); 0 for other runs.
   */
  pairsNotAsked: z.number().int().nonnegative(),
  /**
   * Whether the server is asking the run's judge again for what it owes (a retry from any tab or
   * CLI): `judgeGaps` and `pairsNotAsked` shrink as its verdicts arrive.
   */
  askingJudge: z.boolean(),
  /** A Turing or pairwise judge's answers by side (null: another run); `judgeSidesText` says them. */
  judgeSides: JudgeSides.nullable(),
  /**
   * Where the cells' 95% intervals stand: `ready` (in the cells; none where a cell has too few
   * items or none were asked for), `computing` (the run has ended and its bootstrap runs in the
   * background; the means are final) or `after-run` (the run still goes: means of what is scored
   * so far, intervals once it ends).
   */
  intervals: z.enum(['ready', 'computing', 'after-run']),
});
export type Leaderboard = z.infer<typeof Leaderboard>;

/**
 * A run as the lists of runs show it (the Benches page, `bench runs`): with the verdicts its judge
 * owes once it has ended (`missingVerdictCount`; 0 while it runs, and for a run without a judge),
 * so a run with holes in its judge's columns does not read as complete there either.
 */
export const BenchRunListing = BenchRun.extend({
  missingVerdicts: z.number().int().nonnegative(),
});
export type BenchRunListing = z.infer<typeof BenchRunListing>;

/**
 * Verdicts a run's judge owes: those it was asked for and did not give (its gaps) and a pairwise
 * judge's pairs not asked yet. A pair's verdict is one judging stored on both of its simulators,
 * so a pairwise gap is counted on the first simulator only.
 */
export function missingVerdictCount(
  run: Pick<BenchRun, 'judge' | 'sims'>,
  judgeGaps: readonly JudgeGaps[],
  pairsNotAsked: number,
): number {
  if (run.judge === null) return 0;
  const counted =
    run.judge.mode === 'pairwise' ? judgeGaps.filter((gap) => gap.sim === run.sims[0]) : judgeGaps;
  return counted.reduce((sum, gap) => sum + gap.unreadable, pairsNotAsked);
}

/** Which score a chart, a drill-down or a comparison is about. */
export const ScoreSelector = z.object({
  source: ScoreSource,
  metric: z.string(),
});
export type ScoreSelector = z.infer<typeof ScoreSelector>;

const FINISHED: ReadonlySet<BenchRun['status']> = new Set(['done', 'failed', 'canceled']);

/** Whether a run has ended (done, failed or canceled): nothing more is predicted unless resumed. */
export function isFinishedRun(run: Pick<BenchRun, 'status'>): boolean {
  return FINISHED.has(run.status);
}

/**
 * A run's Overall: the judge's overall score when a judge scored the run (score mode), else the
 * content-class rule score (a Turing or pairwise judge gives no overall). Every surface opens a
 * run on it: the run page, `bench leaderboard`, `bench run --json`.
 */
export function overallSelector(run: Pick<BenchRun, 'judge'>): ScoreSelector {
  return run.judge?.mode === 'score'
    ? { source: 'judge', metric: 'overall' }
    : { source: 'rule', metric: 'content' };
}

/** The Overall runs compared all have: the judge's only when a judge scored each of them. */
export function sharedOverallSelector(runs: readonly Pick<BenchRun, 'judge'>[]): ScoreSelector {
  const selectors = runs.map(overallSelector);
  return selectors.every((selector) => selector.source === 'judge') && selectors.length > 0
    ? { source: 'judge', metric: 'overall' }
    : { source: 'rule', metric: 'content' };
}

/** One scored prediction behind a leaderboard cell, with what is needed to show it. */
export const CellItem = z.object({
  itemId: z.string(),
  sim: z.string(),
  task: z.string(),
  domain: Domain,
  turnIndex: z.number().int(),
  totalTurns: z.number().int(),
  historyLength: z.number().int(),
  /** The trajectory and step it came from, for a link to Compare; null for imported items. */
  origin: z.object({
    dataset: z.string().nullable(),
    trajectory: z.string().nullable(),
    stepIndex: z.number().int().nullable(),
  }),
  /**
   * The item's trajectory, with what the trajectory lists name it by: its source id, and the task
   * id and trial its format records (as `TrajectorySummary` has them; null when it records none or
   * its dataset no longer holds it). Null for an item imported from a bench file.
   */
  trajectory: z
    .object({
      externalId: z.string(),
      taskId: z.string().nullable(),
      trial: z.string().nullable(),
    })
    .nullable(),
  action: z.string(),
  real: Observation,
  predicted: Observation.nullable(),
  /** The selected score, 0-100; null when missing. */
  value: z.number().nullable(),
  /** Every score of this prediction, `source:metric` → 0-100 (null when missing). */
  scores: z.record(z.string(), z.number().nullable()),
  latencyMs: z.number(),
  error: z.string().nullable(),
});
export type CellItem = z.infer<typeof CellItem>;

/** Bins of the 0-100 score a run's score distribution is counted in (10 points each). */
export const SCORE_BINS = 10;

/**
 * The axes a run's scores are counted along for its charts, each slice one integer x:
 * - `bin`: the score's bin of `SCORE_BINS` equal bins of 0-100 (100 in the last), values only;
 * - `turn`: the item's turn index; `history`: its history length (earlier turns shown);
 *   `history-shift`: history length minus turn index (0 when an item shows its whole history);
 * - `tokens`: the bit length of the prediction's input + output tokens (0: none; x ≥ 1: 2^(x-1)
 *   to 2^x - 1 tokens); `latency`: the bit length of its whole milliseconds (0: under 1 ms).
 */
export const SCORE_SLICE_AXES = [
  'bin',
  'turn',
  'history',
  'history-shift',
  'tokens',
  'latency',
] as const;
export const ScoreSliceAxis = z.enum(SCORE_SLICE_AXES);
export type ScoreSliceAxis = z.infer<typeof ScoreSliceAxis>;

/** What places a score on the chart axes besides its value: its item and its prediction. */
export interface ScoreFacts {
  turnIndex: number;
  historyLength: number;
  /** Input + output tokens and latency of the prediction; null when there is none. */
  tokens: number | null;
  latencyMs: number | null;
}

/** Bit length of a non-negative integer: 0 for 0, x for 2^(x-1) to 2^x - 1. */
function bitLength(value: number): number {
  return 32 - Math.clz32(Math.max(0, value));
}

/** The x of a score on each axis it is counted along (`SCORE_SLICE_AXES`). */
export function scoreSliceXs(value: number | null, facts: ScoreFacts): [ScoreSliceAxis, number][] {
  const xs: [ScoreSliceAxis, number][] = [
    ['turn', facts.turnIndex],
    ['history', facts.historyLength],
    ['history-shift', facts.historyLength - facts.turnIndex],
  ];
  if (value !== null) {
    const bin = Math.floor((value * 100) / (100 / SCORE_BINS));
    xs.push(['bin', Math.min(SCORE_BINS - 1, Math.max(0, bin))]);
  }
  if (facts.tokens !== null) xs.push(['tokens', bitLength(facts.tokens)]);
  if (facts.latencyMs !== null) xs.push(['latency', bitLength(Math.floor(facts.latencyMs))]);
  return xs;
}

/**
 * A simulator's scores of one (source, metric) that share x on one axis, counted as the run is
 * written: what a chart draws, at any run size, without a point per item.
 */
export const ScoreSlice = z.object({
  sim: z.string(),
  axis: ScoreSliceAxis,
  x: z.number().int(),
  /** Score rows, missing values included. */
  rows: z.number().int().nonnegative(),
  /** Rows with a value. */
  n: z.number().int().nonnegative(),
  /** The sum of their values in grid units (`scoreGridUnits`): exact, so means are too. */
  gridSum: z.number(),
});
export type ScoreSlice = z.infer<typeof ScoreSlice>;

/** One cell of two runs side by side. */
export const CellDelta = z.object({
  sim: z.string(),
  task: z.string(),
  source: ScoreSource,
  metric: z.string(),
  before: LeaderboardCell.nullable(),
  after: LeaderboardCell.nullable(),
  /** after − before, 0-100 points; null when either is missing. */
  delta: z.number().nullable(),
  /**
   * True when both cells are over the same items: runs of one bench version and split, each cell
   * with as many items scored and as many missing. A canceled run's cell or a judge that failed on
   * other items is over a different set, whose mean can move with the set alone.
   */
  sameItems: z.boolean(),
  /**
   * The 95% interval of the difference (0-100 points), from a paired bootstrap over the items both
   * runs scored (the items resampled together, stratified by task as the leaderboard's intervals
   * are); null for a score other than the compared one, for runs over different items, and for a
   * cell of fewer than 2 items.
   */
  deltaLow: z.number().nullable(),
  deltaHigh: z.number().nullable(),
  /** True when the cells are over the same items and the difference's interval excludes 0. */
  significant: z.boolean(),
});
export type CellDelta = z.infer<typeof CellDelta>;

export const ItemDelta = z.object({
  itemId: z.string(),
  sim: z.string(),
  task: z.string(),
  /**
   * What tells the item apart where a list names it: the trajectory it was taken from (its id in
   * its dataset; null for an item imported from a bench file) and its turn there.
   */
  trajectory: z.string().nullable(),
  turnIndex: z.number().int().nonnegative(),
  totalTurns: z.number().int().positive(),
  /** The item's action as one line of text, its first 120 characters. */
  action: z.string(),
  before: z.number().nullable(),
  after: z.number().nullable(),
  delta: z.number(),
});
export type ItemDelta = z.infer<typeof ItemDelta>;

export const RunComparison = z.object({
  before: BenchRun,
  after: BenchRun,
  cells: z.array(CellDelta),
  /** Items that gained most, then those that lost most, for the selected score. */
  improved: z.array(ItemDelta),
  regressed: z.array(ItemDelta),
});
export type RunComparison = z.infer<typeof RunComparison>;

/**
 * The score a run's page opens on: its Overall, except for an ended run whose judge gave no verdict
 * at all (every request failed or none could be read). That page would open on empty cells and
 * charts while the rule scores exist, so it opens on the content score; the failures note says why
 * the judge's are missing. A running run keeps its Overall, as verdicts may still come.
 */
export function openingSelector(
  run: Pick<BenchRun, 'judge' | 'status'>,
  cells: readonly LeaderboardCell[],
): ScoreSelector {
  const overall = overallSelector(run);
  if (overall.source !== 'judge' || !isFinishedRun(run)) return overall;
  const judged = cells.some(
    (cell) => cell.source === overall.source && cell.metric === overall.metric && cell.n > 0,
  );
  return judged ? overall : { source: 'rule', metric: 'content' };
}
