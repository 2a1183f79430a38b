import { TRPCError } from '@trpc/server';
import type { BenchRef, Store } from '@terrarium/db';
import {
  buildBench,
  compareCells,
  focusValues,
  itemDeltas,
  pairedDeltas,
  placeDelta,
  type ItemMove,
} from '@terrarium/bench';
import { watchRun as watchProgress } from '@terrarium/jobs';
import { actionText } from '@terrarium/fidelity';
import {
  isFinishedRun,
  scoreKey,
  type BenchItem,
  type BenchManifest,
  type BenchRun,
  type BenchRunListing,
  type BenchRunMode,
  type BenchSplit,
  type BenchSummary,
  type CellItem,
  type ItemScore,
  type JudgeConfig,
  type Leaderboard,
  type Observation,
  type RunComparison,
  type RunPrediction,
  type Sampling,
  type ScoreSlice,
  type ScoreSelector,
  type UnitUsage,
} from '@terrarium/schema';
import type { PromptFolder } from '@terrarium/worlds';
import { findDataset } from '../simulate/find-trajectory';
import { itemTrajectories } from './item-sources';
import { loadDatasetBySourceIds } from '../simulate/load-trajectories';
import { endpointAllowlistFromEnv } from '../simulate/sim-spec';
import { simulatorTrpcError, type ServiceContext } from '../trpc';
import { allBenchItems, readAll } from './read-all';
import { createJudge } from './judge';
import { runReport, type RunReport } from './run-report';
import {
  currentLeaderboard,
  DEFAULT_BOOTSTRAP,
  LEADERBOARD_SEED,
  runLeaderboard,
} from './run-leaderboard';
import { predictBenchItem } from './item-prediction';
import { askingJudgeAgain } from './judge-asking';
import { owedVerdicts, pairsNotAsked, judgeSides } from './judge-owed';
import { inlineRunDeps } from './run-deps';
import { runPromptsOf } from './run-prompts';

export interface BuildBenchInput {
  name: string;
  datasets: string[];
  sampling: Sampling;
  seed: number;
  devFraction: number;
  maxItemsPerTask?: number | undefined;
}

export interface StartRunInput {
  bench: string;
  version?: number | undefined;
  sims: string[];
  judge: JudgeConfig | null;
  mode: BenchRunMode;
  split: BenchSplit;
  /**
   * The prompt folder the run speaks with (`bench run --prompts DIR`), recorded with the run;
   * omitted: the server's own (`serve --prompts DIR`), if any; null: Terrarium's templates.
   */
  prompts?: PromptFolder | null | undefined;
}

/** Runs bench runs in the background: the server's job queue. */
export interface BenchRunner {
  enqueue(runId: string): Promise<void>;
  /** Throws a SimulatorError for a simulator the workers could not run (no unit would score). */
  checkSimulator(sim: string): void;
}

const SUMMARY_TASKS = new Set(['overall', 'macro']);

function notFound(message: string): TRPCError {
  return new TRPCError({ code: 'NOT_FOUND', message });
}

export async function listBenches(ctx: ServiceContext): Promise<BenchSummary[]> {
  const [benches, runs] = await Promise.all([ctx.store.listBenches(), ctx.store.listBenchRuns()]);
  return Promise.all(
    benches.map(async ({ id, manifest }) => ({
      ...manifest,
      id,
      runs: runs.filter(
        (run) => run.bench === manifest.name && run.benchVersion === manifest.version,
      ).length,
      splits: {
        test: await ctx.store.countBenchItems({ benchId: id }, 'test'),
        dev: await ctx.store.countBenchItems({ benchId: id }, 'dev'),
      },
    })),
  );
}

export async function requireBench(store: Store, name: string, version?: number) {
  const bench = await store.getBench(name, version);
  if (bench === null) {
    const known = [...new Set((await store.listBenches()).map((b) => b.manifest.name))];
    throw notFound(
      `bench: no bench "${name}"${version === undefined ? '' : ` version ${version}`} (benches: ${known.join(', ') || 'none yet'})`,
    );
  }
  return bench;
}

export async function benchItems(
  ctx: ServiceContext,
  input: {
    name: string;
    version?: number | undefined;
    split?: BenchSplit | undefined;
    offset: number;
    limit: number;
    order?: 'build' | 'id' | undefined;
  },
): Promise<{ total: number; rows: BenchItem[] }> {
  const bench = await requireBench(ctx.store, input.name, input.version);
  return ctx.store.getBenchItems(
    { benchId: bench.id },
    {
      offset: input.offset,
      limit: input.limit,
      ...(input.split === undefined ? {} : { split: input.split }),
      ...(input.order === undefined ? {} : { order: input.order }),
    },
  );
}

/**
 * Builds a bench from stored datasets and freezes it in the store (a new version when the name
 * exists). Items point back to their dataset by name and to their trajectory by its source id
 * (Compare looks both up): never by store ids, so the same files imported in another order, or on
 * another machine, give the same item ids, split, sampling and content hash.
 */
export async function buildBenchFromDatasets(
  ctx: ServiceContext,
  input: BuildBenchInput,
): Promise<BenchManifest> {
  const sources = [];
  const names: string[] = [];
  for (const wanted of input.datasets) {
    const dataset = await findDataset(ctx.store, wanted, 'datasets');
    names.push(dataset.name);
    for (const trajectory of await loadDatasetBySourceIds(ctx.store, dataset.id)) {
      sources.push({ dataset: dataset.name, trajectory });
    }
  }
  const built = buildBench({
    trajectories: sources,
    name: input.name,
    // The store assigns the version when it stores the bench.
    version: 1,
    sampling: input.sampling,
    seed: input.seed,
    devFraction: input.devFraction,
    createdAt: new Date().toISOString(),
    sources: names,
    ...(input.maxItemsPerTask === undefined ? {} : { maxItemsPerTask: input.maxItemsPerTask }),
  });
  if (built.items.length === 0) {
    throw new TRPCError({
      code: 'BAD_REQUEST',
      message: `datasets: ${names.join(', ')} hold no transitions to sample`,
    });
  }
  const { version: _assigned, ...manifest } = built.manifest;
  return (await ctx.store.createBench(manifest, built.items)).manifest;
}

export async function listRuns(ctx: ServiceContext, bench?: string): Promise<BenchRunListing[]> {
  const runs = await ctx.store.listBenchRuns(bench);
  return Promise.all(
    // Owed once a run has ended (the run page's retry offers to ask for them); 0 while it runs.
    runs.map(async (run) => ({
      ...run,
      missingVerdicts:
        run.status === 'queued' || run.status === 'running'
          ? 0
          : await owedVerdicts(ctx.store, run),
    })),
  );
}

export async function getRun(ctx: ServiceContext, runId: string): Promise<BenchRun> {
  const run = await ctx.store.getBenchRun(runId);
  if (run === null) throw notFound(`runId: no bench run ${runId}`);
  return run;
}

/**
 * The runner that will take a run with these simulators and judge, refusing now, with the
 * reason, what would fail every unit later: no workers, a missing model folder, a host off the
 * allowlist. Checked when a run starts and when a canceled one resumes.
 */
export function runnerFor(
  ctx: ServiceContext,
  run: { sims: readonly string[]; judge: JudgeConfig | null },
): BenchRunner {
  if (ctx.benchRunner === undefined) {
    throw new TRPCError({
      code: 'PRECONDITION_FAILED',
      message: 'this server runs no bench workers',
    });
  }
  const runner = ctx.benchRunner;
  try {
    if (run.judge !== null) createJudge(run.judge, { allowlist: endpointAllowlistFromEnv() });
    for (const sim of run.sims) runner.checkSimulator(sim);
  } catch (error) {
    throw simulatorTrpcError(error);
  }
  return runner;
}

export async function startRun(ctx: ServiceContext, input: StartRunInput): Promise<BenchRun> {
  const runner = runnerFor(ctx, input);
  const bench = await requireBench(ctx.store, input.bench, input.version);
  // Checked before the run is stored: a run with nothing to do would stay queued forever.
  if ((await ctx.store.countBenchItems({ benchId: bench.id }, input.split)) === 0) {
    throw new TRPCError({
      code: 'BAD_REQUEST',
      message: `split: bench "${bench.manifest.name}" has no ${input.split} items`,
    });
  }
  const prompts = input.prompts === undefined ? (ctx.prompts ?? null) : input.prompts;
  const run = await ctx.store.createBenchRun({
    bench: bench.manifest.name,
    benchVersion: bench.manifest.version,
    sims: input.sims,
    judge: input.judge,
    mode: input.mode,
    split: input.split,
    prompts: prompts === null ? null : runPromptsOf(prompts),
  });
  await runner.enqueue(run.id);
  return run;
}

/**
 * The run each time it changes, until it ends. It polls the store: workers may be other processes
 * (PostgreSQL), so the store is the one place progress is seen.
 */
export async function* watchRun(
  ctx: ServiceContext,
  runId: string,
  signal: AbortSignal | undefined,
): AsyncGenerator<BenchRun> {
  await getRun(ctx, runId);
  for await (const progress of watchProgress(ctx.store, runId, signal ? { signal } : {})) {
    yield await getRun(ctx, progress.runId);
  }
}

export interface RunData {
  run: BenchRun;
  items: Map<string, BenchItem>;
  scores: ItemScore[];
}

/** A run with every item of its split and every score: for work over the whole run. */
export async function runData(store: Store, runId: string): Promise<RunData> {
  const run = await store.getBenchRun(runId);
  if (run === null) throw notFound(`runId: no bench run ${runId}`);
  const ref: BenchRef = { name: run.bench, version: run.benchVersion };
  const items = await allBenchItems(store, ref, run.split);
  const scores = await readAll((offset, limit) => store.listScores(runId, { offset, limit }));
  return { run, items: new Map(items.map((item) => [item.id, item])), scores };
}

/** The run's leaderboard from the writer's totals, its intervals cached once it ends (run-leaderboard.ts). */
export async function leaderboard(
  ctx: ServiceContext,
  runId: string,
  bootstrap: number,
): Promise<Leaderboard> {
  const run = await getRun(ctx, runId);
  const [board, failures, judgeGaps, notAsked, sides] = await Promise.all([
    currentLeaderboard(ctx.store, run, bootstrap),
    // Most runs fail nothing: they skip reading every prediction of the run to find none.
    run.failed === 0 ? Promise.resolve([]) : ctx.store.runFailures(run.id),
    run.judge === null ? Promise.resolve([]) : ctx.store.runJudgeGaps(run.id),
    pairsNotAsked(ctx.store, run),
    judgeSides(ctx.store, run),
  ]);
  return {
    run,
    ...board,
    failures,
    judgeGaps,
    pairsNotAsked: notAsked,
    askingJudge: askingJudgeAgain(ctx.store, run.id),
    judgeSides: sides,
  };
}

const percent = (value: number | null) => (value === null ? null : value * 100);

async function predictionsOf(
  store: Store,
  runId: string,
  sim: string,
  itemIds: readonly string[],
): Promise<Map<string, RunPrediction>> {
  if (itemIds.length === 0) return new Map();
  const page = await store.listPredictions(runId, {
    sim,
    itemIds,
    offset: 0,
    limit: itemIds.length,
  });
  return new Map(page.rows.map((prediction) => [prediction.itemId, prediction]));
}

/**
 * The items behind one leaderboard cell, worst first (missing scores first), paged in SQL: only the
 * page's items, predictions and scores are read.
 */
export async function cellItems(
  ctx: ServiceContext,
  input: {
    runId: string;
    sim: string;
    task: string;
    score: ScoreSelector;
    offset: number;
    limit: number;
  },
): Promise<{ total: number; rows: CellItem[] }> {
  const run = await getRun(ctx, input.runId);
  if (!run.sims.includes(input.sim)) {
    throw notFound(`sim: run ${run.id} has no simulator ${input.sim}`);
  }
  const page = await ctx.store.listCellScores(run.id, {
    sim: input.sim,
    source: input.score.source,
    metric: input.score.metric,
    task: SUMMARY_TASKS.has(input.task) ? null : input.task,
    offset: input.offset,
    limit: input.limit,
  });
  // An empty cell of a finished run: a cell that exists but scored nothing, or a stale link's
  // metric or task (then say which, rather than show an empty page as if it were the cell).
  if (page.total === 0 && isFinishedRun(run)) await checkCellExists(ctx.store, run.id, input);
  const trajectories = await itemTrajectories(
    ctx.store,
    page.rows.map(({ item }) => item.origin),
  );
  const rows = page.rows.map(({ item, value, prediction, scores }, index): CellItem => ({
    itemId: item.id,
    sim: input.sim,
    task: item.task,
    domain: item.domain,
    turnIndex: item.turnIndex,
    totalTurns: item.totalTurns,
    historyLength: item.history.length,
    origin: item.origin,
    trajectory: trajectories[index] ?? null,
    action: actionText(item.action),
    real: item.real,
    predicted: prediction?.observation ?? null,
    value: percent(value),
    scores: Object.fromEntries(
      Object.entries(scores).map(([name, score]) => [name, percent(score)]),
    ),
    latencyMs: prediction?.latencyMs ?? 0,
    error: prediction?.error ?? null,
  }));
  return { total: page.total, rows };
}

async function checkCellExists(
  store: Store,
  runId: string,
  cell: { sim: string; task: string; score: ScoreSelector },
): Promise<void> {
  const totals = await store.runScoreTotals(runId);
  if (totals === null) throw notFound(`runId: no bench run ${runId}`);
  const { source, metric } = cell.score;
  if (!totals.cells.some((total) => total.source === source && total.metric === metric)) {
    throw notFound(`score: run ${runId} has no ${source} scores named ${metric}`);
  }
  if (
    !SUMMARY_TASKS.has(cell.task) &&
    !totals.itemsPerTask.some(({ task }) => task === cell.task)
  ) {
    throw notFound(`task: run ${runId} has no task ${cell.task}`);
  }
}

/**
 * The run's scores of one (source, metric) counted along the chart axes, as the writer keeps them
 * (a few dozen rows at any run size): what the charts draw.
 */
export async function chartSlices(
  ctx: ServiceContext,
  runId: string,
  score: ScoreSelector,
): Promise<ScoreSlice[]> {
  const run = await getRun(ctx, runId);
  return ctx.store.runScoreSlices(run.id, score);
}

const ITEM_DELTAS_LISTED = 20;

/** A run's values of one score, read a page at a time (the scores' own index: no items read). */
async function scoreValues(store: Store, runId: string, score: ScoreSelector) {
  return focusValues(
    await readAll((offset, limit) =>
      store.listScores(runId, { source: score.source, metric: score.metric, offset, limit }),
    ),
    score,
  );
}

/**
 * Two runs of the same bench cell by cell, and the items that moved most on the chosen score. The
 * cells are each run's own leaderboard (cached with its intervals once the run ends), so the
 * comparison shows exactly the numbers each run's page shows, and reads no run whole.
 */
export async function compareRuns(
  ctx: ServiceContext,
  input: { before: string; after: string; score: ScoreSelector },
): Promise<RunComparison> {
  const [before, after] = await Promise.all([getRun(ctx, input.before), getRun(ctx, input.after)]);
  if (before.bench !== after.bench) {
    throw new TRPCError({
      code: 'BAD_REQUEST',
      message: `after: run ${input.after} is on bench "${after.bench}", not "${before.bench}"`,
    });
  }
  const [beforeCells, afterCells, beforeValues, afterValues] = await Promise.all([
    runLeaderboard(ctx.store, before, DEFAULT_BOOTSTRAP),
    runLeaderboard(ctx.store, after, DEFAULT_BOOTSTRAP),
    scoreValues(ctx.store, before.id, input.score),
    scoreValues(ctx.store, after.id, input.score),
  ]);
  const moved = itemDeltas(beforeValues, afterValues, ITEM_DELTAS_LISTED);
  const taskOf = new Map<string, string>();
  // Both runs are on one bench; its items' tasks are read once per version the runs were on.
  for (const version of new Set([before.benchVersion, after.benchVersion])) {
    const ref: BenchRef = { name: before.bench, version };
    for (const [itemId, task] of await ctx.store.benchItemTasks(ref)) taskOf.set(itemId, task);
  }
  // The listed items' places (trajectory and turn), from the runs' bench versions, newest first.
  const listed = [...new Set([...moved.improved, ...moved.regressed].map((d) => d.itemId))];
  const placeOf = new Map<string, BenchItem>();
  for (const version of new Set([after.benchVersion, before.benchVersion])) {
    const missing = listed.filter((itemId) => !placeOf.has(itemId));
    const ref: BenchRef = { name: before.bench, version };
    for (const item of await ctx.store.getBenchItemsByIds(ref, missing)) placeOf.set(item.id, item);
  }
  const placed = (delta: ItemMove) => placeDelta(delta, placeOf.get(delta.itemId));
  const sameItems = before.benchVersion === after.benchVersion && before.split === after.split;
  return {
    before,
    after,
    cells: compareCells(
      beforeCells,
      afterCells,
      sameItems,
      sameItems
        ? pairedDeltas(input.score, beforeValues, afterValues, taskOf, {
            bootstrap: DEFAULT_BOOTSTRAP,
            seed: LEADERBOARD_SEED,
          })
        : null,
    ),
    improved: moved.improved.map(placed),
    regressed: moved.regressed.map(placed),
  };
}

/** The `bench run --json` summary of a run (see run-report.ts). */
export async function report(ctx: ServiceContext, runId: string): Promise<RunReport> {
  const data = await runData(ctx.store, runId);
  const predictions = await readAll((offset, limit) =>
    ctx.store.listPredictions(runId, { offset, limit }),
  );
  const failed = new Map<string, number>();
  for (const prediction of predictions) {
    if (prediction.error !== null)
      failed.set(prediction.sim, (failed.get(prediction.sim) ?? 0) + 1);
  }
  const judgeGaps = data.run.judge === null ? [] : await ctx.store.runJudgeGaps(runId);
  return runReport(data.run, [...data.items.values()], data.scores, failed, {
    judgeGaps,
    judgeSides: await judgeSides(ctx.store, data.run),
  });
}

/** Scores keyed `source:metric`, 0-100, as the drill-down shows them. */
function scoreMap(scores: readonly ItemScore[]): Record<string, number | null> {
  return Object.fromEntries(scores.map((score) => [scoreKey(score), percent(score.value)]));
}

export interface ItemRecomputation {
  itemId: string;
  sim: string;
  /** What the run stored (the drill-down shows this), null when the unit has not run. */
  stored: { predicted: Observation | null; scores: Record<string, number | null> } | null;
  /**
   * The same unit predicted and scored again now, through the run's own code path, with what
   * that cost (not added to the run: nothing of it is stored).
   */
  recomputed: {
    predicted: Observation;
    scores: Record<string, number | null>;
    usage: UnitUsage;
    judgeUsage: UnitUsage | null;
  };
}

/**
 * One bench item under one of the run's simulators, predicted again with the run's simulator
 * construction, corpus and leave-one-out (see `predictBenchItem`): what "Open in Compare" and the
 * CLI use instead of re-simulating the item's trajectory over the whole dataset.
 */
export async function recomputeItem(
  ctx: ServiceContext,
  input: { runId: string; itemId: string; sim: string },
): Promise<ItemRecomputation> {
  const run = await getRun(ctx, input.runId);
  if (!run.sims.includes(input.sim)) {
    throw new TRPCError({
      code: 'BAD_REQUEST',
      message: `sim: run ${run.id} has no simulator "${input.sim}" (it has ${run.sims.join(', ')})`,
    });
  }
  const ref: BenchRef = { name: run.bench, version: run.benchVersion };
  const [item] = await ctx.store.getBenchItemsByIds(ref, [input.itemId]);
  if (item === undefined) {
    throw notFound(`itemId: bench "${run.bench}" v${run.benchVersion} has no item ${input.itemId}`);
  }
  const deps = inlineRunDeps(ctx.store);
  let recomputed;
  try {
    recomputed = await predictBenchItem(deps, run, input.sim, item);
  } catch (error) {
    throw simulatorTrpcError(error);
  }
  const prediction = (await predictionsOf(ctx.store, run.id, input.sim, [item.id])).get(item.id);
  const storedScores = await readAll((offset, limit) =>
    ctx.store.listScores(run.id, { sim: input.sim, itemIds: [item.id], offset, limit }),
  );
  return {
    itemId: item.id,
    sim: input.sim,
    stored:
      prediction === undefined
        ? null
        : { predicted: prediction.observation, scores: scoreMap(storedScores) },
    recomputed: {
      predicted: recomputed.observation,
      scores: scoreMap(recomputed.scores),
      usage: recomputed.usage,
      judgeUsage: recomputed.judgeUsage ?? null,
    },
  };
}
