import { z } from 'zod';
import { SimSpec } from './simulation';
import { Action, Domain, JsonValue, Observation, ToolSchema } from './trajectory';

/**
 * Which transitions of a trajectory become bench items. `agentworld` is AgentWorldBench's rule:
 * the first, three evenly spaced middle ones and the last.
 */
export const Sampling = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('agentworld') }),
  z.object({ kind: z.literal('all') }),
  z.object({ kind: z.literal('random'), count: z.number().int().positive() }),
]);
export type Sampling = z.infer<typeof Sampling>;

/** Parses the CLI form: `agentworld`, `all`, `random:N`. */
export function parseSampling(text: string): Sampling | null {
  if (text === 'agentworld' || text === 'all') return { kind: text };
  const random = /^random:(\d+)$/.exec(text);
  const count = random?.[1] === undefined ? 0 : Number(random[1]);
  return count > 0 ? { kind: 'random', count } : null;
}

/** `test` items are the bench; `dev` items are held out for tuning prompts and judges. */
export const BenchSplit = z.enum(['test', 'dev']);
export type BenchSplit = z.infer<typeof BenchSplit>;

/** One earlier transition, frozen into the item. */
export const BenchTurn = z.object({ action: Action, observation: Observation });
export type BenchTurn = z.infer<typeof BenchTurn>;

/**
 * One bench item: everything a simulator and a judge see, copied out of the trajectory so that the
 * bench never changes when datasets do.
 */
export const BenchItem = z.object({
  /** Content hash of (context, history, action): identical items share it and are deduped. */
  id: z.string(),
  /** AgentWorldBench `task` (e.g. `tau2-bench/retail`, `intercode/bash`): the stratum. */
  task: z.string(),
  domain: Domain,
  split: BenchSplit,
  /** Where it was taken from; null fields for items imported from a bench file. */
  origin: z.object({
    dataset: z.string().nullable(),
    trajectory: z.string().nullable(),
    stepIndex: z.number().int().nullable(),
  }),
  /** 0-based position among the trajectory's transitions (AgentWorldBench `turn_idx`). */
  turnIndex: z.number().int().nonnegative(),
  totalTurns: z.number().int().positive(),
  context: z.object({
    task: z.string().nullable(),
    systemPrompt: z.string().nullable(),
    tools: z.array(ToolSchema),
  }),
  history: z.array(BenchTurn),
  action: Action,
  real: Observation,
});
export type BenchItem = z.infer<typeof BenchItem>;

/** What rule scoring reads of an item: not its context, most of a tau2-bench item's bytes. */
export const ScorableItem = BenchItem.pick({ id: true, history: true, action: true, real: true });
export type ScorableItem = z.infer<typeof ScorableItem>;

/** What defines a bench version; a new build with the same name becomes the next version. */
export const BenchManifest = z.object({
  name: z.string().min(1),
  version: z.number().int().positive(),
  createdAt: z.string(),
  sampling: Sampling,
  seed: z.number().int(),
  /** Dataset names, or the file name for an imported bench. */
  sources: z.array(z.string()),
  /** Fraction of trajectories whose items go to the `dev` split. */
  devFraction: z.number().min(0).max(1),
  itemCount: z.number().int().nonnegative(),
  /** Items dropped because an identical (context, history, action) was already in. */
  duplicatesDropped: z.number().int().nonnegative(),
  byTask: z.record(z.string(), z.number().int().nonnegative()),
  /** Hash over the item ids in order: two benches with the same hash hold the same items. */
  contentHash: z.string(),
});
export type BenchManifest = z.infer<typeof BenchManifest>;

/** Kept apart everywhere: a rule metric, a judge model, or a person. */
export const SCORE_SOURCES = ['rule', 'judge', 'human'] as const;
export const ScoreSource = z.enum(SCORE_SOURCES);
export type ScoreSource = z.infer<typeof ScoreSource>;

/** The five AgentWorldBench judge dimensions. */
export const JUDGE_DIMENSIONS = [
  'format',
  'factuality',
  'consistency',
  'realism',
  'quality',
] as const;
export const JudgeDimension = z.enum(JUDGE_DIMENSIONS);
export type JudgeDimension = z.infer<typeof JudgeDimension>;

/** One score of one prediction of one item, in [0,1] (reports scale it to 0-100). */
export const ItemScore = z.object({
  itemId: z.string(),
  sim: z.string(),
  source: ScoreSource,
  /** Rule metric id (`exact`, `token_f1`, `content`…), judge dimension, or a human rubric key. */
  metric: z.string(),
  /** Null when the metric does not apply or the judge's answer could not be parsed. */
  value: z.number().min(0).max(1).nullable(),
  /** Why: the content-class spans, the judge's reasoning, the labeler's comment. */
  detail: JsonValue.nullable(),
});
export type ItemScore = z.infer<typeof ItemScore>;

/** `rule:content`, `judge:overall`: how a score is named in results, reports, selects and URLs. */
export function scoreKey(score: Pick<ItemScore, 'source' | 'metric'>): string {
  return `${score.source}:${score.metric}`;
}

export const BenchRunMode = z.discriminatedUnion('kind', [
  /** Teacher forcing: the real history at each item (the default). */
  z.object({ kind: z.literal('open') }),
  /** The simulator's own earlier predictions replace the real observations of the last `steps` turns. */
  z.object({ kind: z.literal('closed'), steps: z.number().int().positive() }),
]);
export type BenchRunMode = z.infer<typeof BenchRunMode>;

export const BENCH_RUN_STATUSES = ['queued', 'running', 'done', 'failed', 'canceled'] as const;
export const BenchRunStatus = z.enum(BENCH_RUN_STATUSES);
export type BenchRunStatus = z.infer<typeof BenchRunStatus>;

export const RunUsage = z.object({
  inputTokens: z.number().int().nonnegative(),
  outputTokens: z.number().int().nonnegative(),
  /**
   * Dollars, from the per-token prices configured for each endpoint (TERRARIUM_PRICING); 0 for
   * local simulators. Null when it is not known: some unit's `openai:` simulator has no price
   * configured or reported no token usage.
   */
  costUsd: z.number().nonnegative().nullable(),
  /**
   * Set when `costUsd` is null: how many units (of a judge: judgings, a pairwise one counting each
   * time it is asked) have a cost not known, and the dollars of the others, which tell "no price
   * set" (nothing known) from "some replies reported no tokens".
   */
  unpriced: z
    .object({ units: z.number().int().positive(), knownUsd: z.number().nonnegative() })
    .optional(),
});
export type RunUsage = z.infer<typeof RunUsage>;

/** A judge named like a simulator: `openai:URL#MODEL`, with its pinned temperature and repeats. */
export const JudgeConfig = z.object({
  spec: SimSpec,
  temperature: z.number().min(0).max(2),
  /** Judgings per item; with k > 1 the spread is reported. */
  repeats: z.number().int().min(1).max(10),
  mode: z.enum(['score', 'turing', 'pairwise']),
});
export type JudgeConfig = z.infer<typeof JudgeConfig>;

/**
 * The prompt folder (`--prompts DIR`, laid out like the official `prompts/`) a bench run speaks to
 * endpoints and judges with, as the run records it: the SHA-256 of its files (each file's relative
 * path, NUL, text, NUL, in path order) and their paths. The texts are stored with the run (the
 * store's `getBenchRunPromptFiles`), so a re-run uses the same prompts on any machine.
 */
export const RunPrompts = z.object({
  hash: z.string().regex(/^[0-9a-f]{64}$/),
  files: z.array(z.string().min(1)),
});
export type RunPrompts = z.infer<typeof RunPrompts>;

/** A prompt folder's files by relative path (`mcp/system_prompt.txt`), texts byte for byte. */
export const PromptFiles = z.record(z.string().min(1), z.string());
export type PromptFiles = z.infer<typeof PromptFiles>;

/** A row of an AgentWorldBench file that could not be read: `file:line: field: reason`. */
export const BenchImportError = z.object({
  file: z.string(),
  line: z.number().int().nonnegative(),
  field: z.string().nullable(),
  reason: z.string(),
  message: z.string(),
});
export type BenchImportError = z.infer<typeof BenchImportError>;

/** What a bench import answers (`POST /api/bench/import`, `bench import`): null manifest, nothing stored. */
export const BenchImportResponse = z.object({
  manifest: BenchManifest.nullable(),
  errors: z.array(BenchImportError),
});
export type BenchImportResponse = z.infer<typeof BenchImportResponse>;

export const BenchRun = z.object({
  id: z.string(),
  bench: z.string(),
  benchVersion: z.number().int().positive(),
  sims: z.array(SimSpec).min(1),
  judge: JudgeConfig.nullable(),
  mode: BenchRunMode,
  split: BenchSplit,
  status: BenchRunStatus,
  createdAt: z.string(),
  finishedAt: z.string().nullable(),
  /** Work units are (item, sim) pairs. */
  total: z.number().int().nonnegative(),
  done: z.number().int().nonnegative(),
  failed: z.number().int().nonnegative(),
  /** Its simulators' calls. */
  usage: RunUsage,
  /**
   * Its judge's calls (score and Turing judgings, and pairwise judging asked for later), all 0
   * for a run without a judge; null when they were not recorded (a judged run made before they
   * were).
   */
  judgeUsage: RunUsage.nullable(),
  error: z.string().nullable(),
  /** The prompt folder the run speaks with; null: Terrarium's own templates. */
  prompts: RunPrompts.nullable(),
});
export type BenchRun = z.infer<typeof BenchRun>;

/** What the model calls of one unit cost. */
export const UnitUsage = z.object({
  inputTokens: z.number().int().nonnegative(),
  outputTokens: z.number().int().nonnegative(),
  /**
   * Dollars (added to the run's); absent means 0 (a local simulator), null not known (an endpoint
   * with no price configured, or no usage reported).
   */
  costUsd: z.number().nonnegative().nullable().optional(),
});
export type UnitUsage = z.infer<typeof UnitUsage>;

/** Usage of nothing yet: no tokens, no dollars. */
export const NO_USAGE: RunUsage = { inputTokens: 0, outputTokens: 0, costUsd: 0 };

/**
 * `total` with one more unit's usage: a unit whose cost is not known makes the total's unknown
 * too, counted in `unpriced` beside the dollars that are known (as the store sums a run's).
 */
export function addUnitUsage(total: RunUsage, unit: UnitUsage): RunUsage {
  let knownUsd = total.costUsd ?? total.unpriced?.knownUsd ?? 0;
  let units = total.unpriced?.units ?? 0;
  if (unit.costUsd === null) units += 1;
  else knownUsd += unit.costUsd ?? 0;
  const tokens = {
    inputTokens: total.inputTokens + unit.inputTokens,
    outputTokens: total.outputTokens + unit.outputTokens,
  };
  return units === 0
    ? { ...tokens, costUsd: knownUsd }
    : { ...tokens, costUsd: null, unpriced: { units, knownUsd } };
}

/** Two totals as one (a run's simulators and its judge): a cost not known in either stays so. */
export function addRunUsage(a: RunUsage, b: RunUsage): RunUsage {
  const tokens = {
    inputTokens: a.inputTokens + b.inputTokens,
    outputTokens: a.outputTokens + b.outputTokens,
  };
  // Unknown with no count of what is unknown: nothing known can be said of the sum either.
  if ((a.costUsd === null && !a.unpriced) || (b.costUsd === null && !b.unpriced)) {
    return { ...tokens, costUsd: null };
  }
  const units = (a.unpriced?.units ?? 0) + (b.unpriced?.units ?? 0);
  const knownUsd =
    (a.costUsd ?? a.unpriced?.knownUsd ?? 0) + (b.costUsd ?? b.unpriced?.knownUsd ?? 0);
  return units === 0
    ? { ...tokens, costUsd: knownUsd }
    : { ...tokens, costUsd: null, unpriced: { units, knownUsd } };
}

/** One stored prediction of a bench run, with what it cost. */
export const RunPrediction = z.object({
  runId: z.string(),
  itemId: z.string(),
  sim: z.string(),
  observation: Observation.nullable(),
  reasoning: z.string().nullable(),
  provenance: JsonValue,
  latencyMs: z.number().nonnegative(),
  /** The simulator's call. */
  usage: UnitUsage,
  /** The run's judge's calls on this prediction; absent when no judge was asked. */
  judgeUsage: UnitUsage.optional(),
  /** Set when the simulator failed on this item; such items count as failed, not as zero. */
  error: z.string().nullable(),
});
export type RunPrediction = z.infer<typeof RunPrediction>;

/**
 * One unit of a bench run as its results export writes it (`bench results`, `GET
 * /api/bench/results`): the item, what the simulator answered and every score it got. Scores are
 * stored values, 0-1 (the pages show them ×100), keyed `source:metric`; null where the metric did
 * not apply. The item's history (the turns before its action) is in it only when asked for
 * (`bench results --history`, `…&history=1`): it repeats the trajectory for every item.
 */
export const RunResult = z.object({
  run: z.string(),
  sim: SimSpec,
  item: z.string(),
  task: z.string(),
  domain: Domain,
  split: BenchSplit,
  origin: BenchItem.shape.origin,
  turnIndex: z.number().int().nonnegative(),
  /** The earlier turns, as `/v1/reward` takes them; present only when asked for. */
  history: z.array(BenchTurn).optional(),
  action: Action,
  real: Observation,
  /** Null when the simulator failed (`error` says why); a failed unit has no scores. */
  predicted: Observation.nullable(),
  error: z.string().nullable(),
  latencyMs: z.number().nonnegative(),
  usage: UnitUsage,
  /** The run's judge's calls on this unit; absent when no judge was asked. */
  judgeUsage: UnitUsage.optional(),
  scores: z.record(z.string(), z.number().min(0).max(1).nullable()),
  /** Why, per score that says: content-class spans, a judge's reasoning, a labeler's comment. */
  details: z.record(z.string(), JsonValue),
});
export type RunResult = z.infer<typeof RunResult>;

/** Where a run's results download from: `GET RUN_RESULTS_PATH?run=ID`, JSON lines. */
export const RUN_RESULTS_PATH = '/api/bench/results';

/** One cell of the leaderboard: a simulator on a task for one metric, 0-100. */
/**
 * Scores are added on a grid of 2^-32: a sum of n scores is the sum of their grid units (each
 * `scoreGridUnits(value)`, an integer), which floating point adds exactly while the total stays
 * below 2^53, i.e. for up to 2^21 (2 M) scores of a cell. An exact sum does not depend on the
 * order of addition, so a mean summed batch by batch while a run goes on, in SQL, or in memory is
 * the same number to the last bit. The grid moves a 0-1 mean by less than 2^-33 (about 1e-8 of a
 * point on the 0-100 scale the pages show).
 */
export const SCORE_GRID = 2 ** 32;

/** A 0-1 score in grid units; SQL computes the same as `floor(value * 4294967296 + 0.5)`. */
export function scoreGridUnits(value: number): number {
  return Math.floor(value * SCORE_GRID + 0.5);
}

/** The mean of `n` scores whose grid units sum to `units`, 0-1. */
export function gridMean(units: number, n: number): number {
  return units / n / SCORE_GRID;
}

export const LeaderboardCell = z.object({
  sim: z.string(),
  /** A task, or `overall` (sample-weighted) or `macro` (mean over tasks). */
  task: z.string(),
  source: ScoreSource,
  metric: z.string(),
  mean: z.number().nullable(),
  /** 95% bootstrap interval over items; null with fewer than 2 items. */
  ciLow: z.number().nullable(),
  ciHigh: z.number().nullable(),
  /** Items with a score. */
  n: z.number().int().nonnegative(),
  /** Items whose score is missing (unparseable judge answer, simulator error). */
  missing: z.number().int().nonnegative(),
});
export type LeaderboardCell = z.infer<typeof LeaderboardCell>;
