import { z } from 'zod';
import { BenchManifest, BenchRun, LeaderboardCell, ScoreSource } from './bench';
import { Domain, Observation } from './trajectory';

/** A bench as listed: its manifest, its store id and how many runs it has. */
export const BenchSummary = BenchManifest.extend({
  id: z.string(),
  runs: z.number().int().nonnegative(),
});
export type BenchSummary = z.infer<typeof BenchSummary>;

export const Leaderboard = z.object({
  run: BenchRun,
  cells: z.array(LeaderboardCell),
});
export type Leaderboard = z.infer<typeof Leaderboard>;

/** Which score a chart, a drill-down or a comparison is about. */
export const ScoreSelector = z.object({
  source: ScoreSource,
  metric: z.string(),
});
export type ScoreSelector = z.infer<typeof ScoreSelector>;

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

/** One point per scored prediction, for the charts (distribution, vs turn, vs history, vs cost). */
export const ScorePoint = z.object({
  sim: z.string(),
  task: z.string(),
  itemId: z.string(),
  turnIndex: z.number().int(),
  historyLength: z.number().int(),
  value: z.number().nullable(),
  latencyMs: z.number(),
  inputTokens: z.number().int(),
  outputTokens: z.number().int(),
});
export type ScorePoint = z.infer<typeof ScorePoint>;

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
  /** True when the two 95% intervals do not overlap. */
  separated: z.boolean(),
});
export type CellDelta = z.infer<typeof CellDelta>;

export const ItemDelta = z.object({
  itemId: z.string(),
  sim: z.string(),
  task: z.string(),
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
