import { TRPCError } from '@trpc/server';
import { z } from 'zod';
import { createRouter, researcherProcedure } from '../trpc';

export const datasetsRouter = createRouter({
  list: researcherProcedure.query(({ ctx }) => ctx.store.listDatasets()),
  quarantine: researcherProcedure
    .input(z.object({ datasetId: z.string().min(1) }))
    .query(({ ctx, input }) => ctx.store.listQuarantined(input.datasetId)),
  /**
   * Deletes a dataset with its trajectories, steps, search index and quarantined records (one
   * statement; the foreign keys cascade). Benches built from it keep their own frozen items, and
   * runs their scores. Refused while an import into it is queued or running, which would write
   * into what is being deleted.
   */
  delete: researcherProcedure
    .input(z.object({ datasetId: z.string().min(1).max(40) }))
    .mutation(async ({ ctx, input }) => {
      const dataset = (await ctx.store.listDatasets()).find(
        (found) => found.id === input.datasetId,
      );
      if (dataset === undefined) {
        throw new TRPCError({ code: 'NOT_FOUND', message: `no dataset ${input.datasetId}` });
      }
      const importing = (await ctx.store.listImportJobs(200)).some(
        (job) =>
          job.dataset === dataset.name && (job.status === 'queued' || job.status === 'running'),
      );
      if (importing) {
        throw new TRPCError({
          code: 'CONFLICT',
          message: `an import into ${dataset.name} is still running: cancel it or let it finish first`,
        });
      }
      await ctx.store.deleteDataset(dataset.id);
      return { deleted: dataset.name, trajectories: dataset.trajectories };
    }),
});
