import { TRPCError } from '@trpc/server';
import { z } from 'zod';
import { createRouter, researcherProcedure } from '../trpc';
import { importJobView } from './import-jobs-view';

const JobId = z.object({ jobId: z.string().min(1).max(40) });

/**
 * Imports as jobs: the Import page polls `list` while any runs, and cancels with `cancel`; the CLI
 * follows the one it started with `get`.
 */
export const importsRouter = createRouter({
  list: researcherProcedure
    .input(
      z.object({ limit: z.number().int().min(1).max(1000).default(50) }).default({ limit: 50 }),
    )
    .query(async ({ ctx, input }) =>
      (await ctx.store.listImportJobs(input.limit)).map(importJobView),
    ),

  /** One job, by id: what a client that started it follows (a list may have pushed it out). */
  get: researcherProcedure.input(JobId).query(async ({ ctx, input }) => {
    const job = await ctx.store.getImportJob(input.jobId);
    if (job === null) throw new TRPCError({ code: 'NOT_FOUND', message: 'no such import' });
    return importJobView(job);
  }),

  cancel: researcherProcedure.input(JobId).mutation(async ({ ctx, input }) => {
    const jobs = ctx.importJobs;
    if (jobs === undefined) {
      throw new TRPCError({ code: 'PRECONDITION_FAILED', message: 'no import workers run here' });
    }
    const canceled = await jobs.cancel(input.jobId);
    const job = await ctx.store.getImportJob(input.jobId);
    if (job === null) throw new TRPCError({ code: 'NOT_FOUND', message: 'no such import' });
    return { canceled, job: importJobView(job) };
  }),
});
