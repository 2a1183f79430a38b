import {
  CURRICULUM_TASK_SELECTIONS,
  CurriculumCheckpoint,
  GenerationStatsRecord,
  TASK_FORMATS,
  lineageReach,
  runCurriculum,
  scriptedRunOptions,
} from '@terrarium/curriculum';
import type { CurriculumRunRecord, Store } from '@terrarium/db';
import { CurriculumRunSettings, type CurriculumJobs } from '@terrarium/jobs';
import { TRPCError } from '@trpc/server';
import { z } from 'zod';
import { createRouter, researcherProcedure, simulatorTrpcError } from '../trpc';
import {
  availablePolicies,
  BUILTIN_DATASET,
  checkCurriculumSim,
  curriculumPolicy,
  curriculumSeeds,
} from './curriculum-deps';
import { generationDivergences, generationRollouts } from './generation-rollouts';
import { exportCurriculumTasks } from './task-export';
import { findDataset } from '../simulate/find-trajectory';

export const CurriculumRunInput = z.object({
  /** Dataset id or name, or `builtin` for the scratch tasks (the demo). */
  dataset: z.string().min(1).max(200),
  policy: z.literal('scripted').default('scripted'),
  /** Bounded: this one plays inside the request (the demo); `start` queues a job. */
  generations: z.number().int().min(1).max(30).default(8),
  probes: z.number().int().min(1).max(32).default(8),
  scheduler: z.enum(['lineage', 'band']).default('lineage'),
  maxDepth: z.number().int().min(1).max(15).default(15),
  seed: z.number().int().default(0),
});

export const CurriculumStartInput = CurriculumRunSettings.extend({
  dataset: z.string().min(1).max(200),
  generations: z.number().int().min(1).max(200).default(8),
});

const RunId = z.object({ runId: z.string().min(1).max(40) });
const Generation = RunId.extend({ generation: z.number().int().positive() });
const ExportInput = RunId.extend({
  format: z.enum(TASK_FORMATS).default('jsonl'),
  tasks: z.enum(CURRICULUM_TASK_SELECTIONS).default('all'),
});

async function runOrError(store: Store, runId: string): Promise<CurriculumRunRecord> {
  const run = await store.getCurriculumRun(runId);
  if (run === null)
    throw new TRPCError({ code: 'NOT_FOUND', message: `no curriculum run ${runId}` });
  return run;
}

async function seedsOf(store: Store, dataset: string) {
  return curriculumSeeds(store, dataset).catch((error: unknown) => {
    throw simulatorTrpcError(error);
  });
}

async function seedsOrError(store: Store, dataset: string) {
  const seeds = await seedsOf(store, dataset);
  if (seeds.tasks.length === 0) {
    const reason = commonestReason(seeds.rejected.map((rejected) => rejected.reason));
    throw new TRPCError({
      code: 'BAD_REQUEST',
      message: `no task of ${dataset} passes its gates (${seeds.rejected.length} rejected${
        reason === null ? '' : `; most often: ${reason}`
      })`,
    });
  }
  return seeds;
}

/** The reason given most often (walk 43: "100 rejected" said nothing of why). */
function commonestReason(reasons: readonly string[]): string | null {
  const counts = new Map<string, number>();
  for (const reason of reasons) counts.set(reason, (counts.get(reason) ?? 0) + 1);
  let commonest: string | null = null;
  for (const [reason, count] of counts) {
    if (commonest === null || count > (counts.get(commonest) ?? 0)) commonest = reason;
  }
  return commonest;
}

/**
 * A run names its seed dataset by name, as the CLI gives it: the page picked by id, which a
 * delete and re-import of the same data changes, and a run so started could never be exported
 * again (walk 43); the run list showed the bare id.
 */
async function seedDatasetName(store: Store, dataset: string): Promise<string> {
  if (dataset === BUILTIN_DATASET) return dataset;
  try {
    return (await findDataset(store, dataset, 'dataset', [BUILTIN_DATASET])).name;
  } catch (error) {
    throw simulatorTrpcError(error);
  }
}

function settingsOf(run: CurriculumRunRecord) {
  const parsed = CurriculumRunSettings.safeParse(run.settings);
  return parsed.success ? parsed.data : null;
}

/** Each lineage with the tiers it made and played (its heading on the page shows both). */
function withReach<L extends Parameters<typeof lineageReach>[0]>(
  lineages: L[],
  generations: Parameters<typeof lineageReach>[1],
) {
  return lineages.map((lineage) => ({ ...lineage, reach: lineageReach(lineage, generations) }));
}

/** The server's curriculum workers; runs are refused where none run. */
function workersOrError(jobs: CurriculumJobs | undefined): CurriculumJobs {
  if (jobs === undefined)
    throw new TRPCError({
      code: 'PRECONDITION_FAILED',
      message: 'this server runs no curriculum workers',
    });
  return jobs;
}

function summaryOf(run: CurriculumRunRecord) {
  return { ...run, settings: settingsOf(run) };
}

/** Thin: seeds and settings are checked here; the run itself is a job (packages/jobs). */
export const curriculumRouter = createRouter({
  run: researcherProcedure.input(CurriculumRunInput).mutation(async ({ ctx, input }) => {
    const seeds = await seedsOrError(ctx.store, input.dataset);
    const result = await runCurriculum(
      seeds.tasks,
      input.generations,
      scriptedRunOptions(seeds, input),
    );
    return {
      generations: result.generations,
      lineages: withReach(result.lineages, result.generations),
      rejectedSeeds: seeds.rejected,
    };
  }),

  /** Queues a run: it is played by the server's workers, streams progress, resumes after a crash. */
  start: researcherProcedure.input(CurriculumStartInput).mutation(async ({ ctx, input }) => {
    const jobs = workersOrError(ctx.curriculumJobs);
    const { dataset: picked, generations, ...settings } = input;
    const dataset = await seedDatasetName(ctx.store, picked);
    try {
      await curriculumPolicy(settings.policy);
      if (settings.sim !== null) checkCurriculumSim(settings.sim, dataset);
    } catch (error) {
      throw simulatorTrpcError(error);
    }
    await seedsOrError(ctx.store, dataset);
    return summaryOf(await jobs.submit({ dataset, settings, generations }));
  }),

  /**
   * How many seed tasks a dataset gives and why the rest were refused, for the page to say before
   * a run is started (walk 47: it offered datasets that give none, and said so only on Start).
   */
  seeds: researcherProcedure
    .input(z.object({ dataset: z.string().min(1).max(200) }))
    .query(async ({ ctx, input }) => {
      const seeds = await seedsOf(ctx.store, input.dataset);
      return {
        tasks: seeds.tasks.length,
        rejected: seeds.rejected.length,
        commonestReason: commonestReason(seeds.rejected.map((rejected) => rejected.reason)),
      };
    }),

  /** The policies a run may be started with here (`onnx:` folders only those the server lists). */
  policies: researcherProcedure.query(() => availablePolicies()),

  list: researcherProcedure.query(async ({ ctx }) =>
    (await ctx.store.listCurriculumRuns()).map(summaryOf),
  ),

  /** A run with its generations so far and its lineages (from the last checkpoint). */
  get: researcherProcedure.input(RunId).query(async ({ ctx, input }) => {
    const run = await runOrError(ctx.store, input.runId);
    const generations = (await ctx.store.listCurriculumGenerations(run.id)).map((row) =>
      GenerationStatsRecord.parse(row.stats),
    );
    const stored = await ctx.store.getCurriculumCheckpoint(run.id);
    const lineages = stored === null ? [] : CurriculumCheckpoint.parse(stored).lineages;
    const rollouts = await ctx.store.getDatasetByName(run.rolloutsDataset);
    return {
      run: summaryOf(run),
      generations,
      lineages: withReach(lineages, generations),
      rolloutsDatasetId: rollouts?.id ?? null,
      builtin: run.dataset === BUILTIN_DATASET,
    };
  }),

  /** The stored rollouts of one generation, each a trajectory that opens in the replay viewer. */
  rollouts: researcherProcedure.input(Generation).query(async ({ ctx, input }) => {
    const run = await runOrError(ctx.store, input.runId);
    return (await generationRollouts(ctx.store, run, input.generation)).map((rollout) => ({
      trajectoryId: rollout.summary.id,
      datasetId: rollout.summary.datasetId,
      externalId: rollout.summary.externalId,
      lineageId: rollout.lineageId,
      probe: rollout.probe,
      mode: rollout.mode,
      passed: rollout.summary.outcome.success === true,
      steps: rollout.summary.stepCount,
    }));
  }),

  /**
   * Simulated vs executable per task of one generation: both pass rates and the steps where the
   * simulator's answer differs from the world's, with their content score.
   */
  divergences: researcherProcedure
    .input(Generation)
    .query(async ({ ctx, input }) =>
      generationDivergences(ctx.store, await runOrError(ctx.store, input.runId), input.generation),
    ),

  /**
   * The run's tasks as JSONL (one text) or Harbor task folders (files under one folder per task),
   * for training elsewhere; `terrarium curriculum export` writes them to disk.
   */
  exportTasks: researcherProcedure.input(ExportInput).query(({ ctx, input }) =>
    exportCurriculumTasks(ctx.store, input.runId, input.format, input.tasks).catch(
      (error: unknown) => {
        throw simulatorTrpcError(error);
      },
    ),
  ),

  /**
   * Goes on with a canceled or failed run from its last finished generation (walk 43: with a
   * server up, nothing could: the CLI's `resume` leaves runs to the server, which resumed only
   * unfinished ones at its start).
   */
  resume: researcherProcedure.input(RunId).mutation(async ({ ctx, input }) => {
    const jobs = workersOrError(ctx.curriculumJobs);
    const run = await runOrError(ctx.store, input.runId);
    if (!(await jobs.continueRun(run.id))) {
      throw new TRPCError({
        code: 'BAD_REQUEST',
        message: `run ${run.id} is ${run.status}: only a canceled or failed run goes on`,
      });
    }
    return summaryOf(await runOrError(ctx.store, run.id));
  }),

  cancel: researcherProcedure.input(RunId).mutation(async ({ ctx, input }) => {
    const jobs = workersOrError(ctx.curriculumJobs);
    return { canceled: await jobs.cancel(input.runId) };
  }),
});
