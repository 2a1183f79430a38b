import { TRPCError } from '@trpc/server';
import {
  BenchRunMode,
  BenchSplit,
  JudgeConfig,
  PromptFiles,
  Sampling,
  ScoreSelector,
  SimSpec,
} from '@terrarium/schema';
import { z } from 'zod';
import { createRouter, researcherProcedure } from '../trpc';
import * as files from './bench-files';
import * as service from './bench-service';
import { judgePairwise } from './pairwise-judging';
import * as lifecycle from './run-lifecycle';
import { promptFolderOfFiles } from './run-prompts';
import type { PromptFolder } from '@terrarium/worlds';

const offset = z.number().int().nonnegative();
const limit = z.number().int().positive().max(500);
const benchName = z.string().min(1).max(200);
const runId = z.string().min(1);

/** Benches (frozen item sets), bench runs (simulators × bench, as jobs) and their scores. */
export const benchRouter = createRouter({
  list: researcherProcedure.query(({ ctx }) => service.listBenches(ctx)),
  items: researcherProcedure
    .input(
      z.object({
        name: benchName,
        version: z.number().int().positive().optional(),
        split: BenchSplit.optional(),
        offset,
        limit,
        /** `id` pages by item id, a uniform sample from the start (ids are content hashes). */
        order: z.enum(['build', 'id']).optional(),
      }),
    )
    .query(({ ctx, input }) => service.benchItems(ctx, input)),
  build: researcherProcedure
    .input(
      z.object({
        name: benchName,
        datasets: z.array(z.string().min(1)).min(1),
        sampling: Sampling.default({ kind: 'agentworld' }),
        seed: z.number().int().default(0),
        devFraction: z.number().min(0).max(1).default(0),
        maxItemsPerTask: z.number().int().positive().optional(),
      }),
    )
    .mutation(({ ctx, input }) => service.buildBenchFromDatasets(ctx, input)),
  // Importing AgentWorldBench files over HTTP: POST /api/bench/import (bench-import-route.ts)
  // streams them, where a procedure would take the whole text as one JSON string.
  /** The bench as AgentWorldBench JSONL lines. */
  exportLines: researcherProcedure
    .input(z.object({ name: benchName, version: z.number().int().positive().optional() }))
    .query(async ({ ctx, input }) => {
      const lines: string[] = [];
      for await (const line of files.agentWorldBenchLines(ctx.store, input.name, input.version)) {
        lines.push(line);
      }
      return lines;
    }),
  /** SFT data from datasets with every item of the bench kept out (13-gram leak check). */
  exportSft: researcherProcedure
    .input(
      z.object({
        bench: benchName,
        version: z.number().int().positive().optional(),
        datasets: z.array(z.string().min(1)).min(1),
        includeReasoning: z.boolean().default(false),
      }),
    )
    .mutation(({ ctx, input }) => files.sftExport(ctx.store, input)),
  runs: researcherProcedure
    .input(z.object({ bench: benchName.optional() }))
    .query(({ ctx, input }) => service.listRuns(ctx, input.bench)),
  run: researcherProcedure
    .input(z.object({ runId }))
    .query(({ ctx, input }) => service.getRun(ctx, input.runId)),
  startRun: researcherProcedure
    .input(
      z.object({
        bench: benchName,
        version: z.number().int().positive().optional(),
        sims: z.array(SimSpec).min(1).max(16),
        judge: JudgeConfig.nullable().default(null),
        mode: BenchRunMode.default({ kind: 'open' }),
        split: BenchSplit.default('test'),
        /**
         * `bench run --prompts DIR` through a server: the folder's files by relative path. Omitted:
         * the server's `serve --prompts` folder; null: Terrarium's templates.
         */
        prompts: PromptFiles.nullable().optional(),
      }),
    )
    .mutation(({ ctx, input }) => {
      const { prompts, ...rest } = input;
      if (prompts === undefined) return service.startRun(ctx, rest);
      return service.startRun(ctx, { ...rest, prompts: promptFolderInput(prompts) });
    }),
  /**
   * Pairwise judging of a finished run (first simulator against each other one): the pairs with
   * no verdict yet, only those never asked, or every pair again (`PairsToJudge`).
   */
  judgePairwise: researcherProcedure
    .input(z.object({ runId, pairs: z.enum(['missing', 'not-asked', 'all']).optional() }))
    .mutation(({ ctx, input }) =>
      judgePairwise(ctx, input.runId, input.pairs === undefined ? {} : { pairs: input.pairs }),
    ),
  cancelRun: researcherProcedure
    .input(z.object({ runId }))
    .mutation(({ ctx, input }) => lifecycle.cancelRun(ctx, input.runId)),
  /** Stops the asking of a run's judge under way; what it gave stays (`lifecycle.stopJudge`). */
  stopJudge: researcherProcedure
    .input(z.object({ runId }))
    .mutation(({ ctx, input }) => lifecycle.stopJudge(ctx, input.runId)),
  /** A canceled run taken up where it stopped (its unrecorded units queued again). */
  resumeRun: researcherProcedure
    .input(z.object({ runId }))
    .mutation(({ ctx, input }) => lifecycle.resumeRun(ctx, input.runId)),
  /** The failed units of a run that has ended, predicted once more. */
  retryFailed: researcherProcedure
    .input(z.object({ runId }))
    .mutation(({ ctx, input }) => lifecycle.retryFailedUnits(ctx, input.runId)),
  /** A run that is not going, with its predictions and scores; refused while labels rest on it. */
  deleteRun: researcherProcedure
    .input(z.object({ runId }))
    .mutation(({ ctx, input }) => lifecycle.deleteRun(ctx, input.runId)),
  /** One bench version with its items and runs, under the same conditions as `deleteRun`. */
  delete: researcherProcedure
    .input(z.object({ name: benchName, version: z.number().int().positive() }))
    .mutation(({ ctx, input }) => lifecycle.deleteBench(ctx, input)),
  /** The run as it progresses, until it ends (server-sent events). */
  watchRun: researcherProcedure
    .input(z.object({ runId }))
    .subscription(({ ctx, input, signal }) => service.watchRun(ctx, input.runId, signal)),
  leaderboard: researcherProcedure
    .input(z.object({ runId, bootstrap: z.number().int().min(0).max(10_000).default(1000) }))
    .query(({ ctx, input }) => service.leaderboard(ctx, input.runId, input.bootstrap)),
  /** What `terrarium bench run --json` prints: Overall, by domain, task and metric per simulator. */
  report: researcherProcedure
    .input(z.object({ runId }))
    .query(({ ctx, input }) => service.report(ctx, input.runId)),
  /** The scored predictions behind one leaderboard cell, worst first. */
  cellItems: researcherProcedure
    .input(
      z.object({
        runId,
        sim: z.string(),
        /** A task, or `overall`/`macro` for all of them. */
        task: z.string(),
        score: ScoreSelector,
        offset,
        limit,
      }),
    )
    .query(({ ctx, input }) => service.cellItems(ctx, input)),
  /**
   * One item of a run predicted and scored again through the run's own code path (its corpus and
   * leave-one-out), next to what the run stored: the bench-aware Compare of a drill-down item.
   */
  recomputeItem: researcherProcedure
    .input(z.object({ runId, itemId: z.string().min(1), sim: z.string().min(1) }))
    .mutation(({ ctx, input }) => service.recomputeItem(ctx, input)),
  /** The scores of one (source, metric) counted along the chart axes: what the charts draw. */
  chartSlices: researcherProcedure
    .input(z.object({ runId, score: ScoreSelector }))
    .query(({ ctx, input }) => service.chartSlices(ctx, input.runId, input.score)),
  compareRuns: researcherProcedure
    .input(z.object({ before: runId, after: runId, score: ScoreSelector }))
    .query(({ ctx, input }) => service.compareRuns(ctx, input)),
});

function promptFolderInput(prompts: PromptFiles | null): PromptFolder | null {
  if (prompts === null) return null;
  try {
    return promptFolderOfFiles(prompts);
  } catch (error) {
    throw new TRPCError({
      code: 'BAD_REQUEST',
      message: error instanceof Error ? error.message : String(error),
    });
  }
}

export function notFound(message: string): TRPCError {
  return new TRPCError({ code: 'NOT_FOUND', message });
}
