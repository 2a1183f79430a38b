import { z } from 'zod';
import { createRouter, researcherProcedure } from '../trpc';
import { deleteDataset } from './delete-dataset';

export const datasetsRouter = createRouter({
  list: researcherProcedure.query(({ ctx }) => ctx.store.listDatasets()),
  quarantine: researcherProcedure
    .input(z.object({ datasetId: z.string().min(1) }))
    .query(({ ctx, input }) => ctx.store.listQuarantined(input.datasetId)),
  /** Deletes a dataset whole (`deleteDataset`); refused while an import into it is running. */
  delete: researcherProcedure
    .input(z.object({ datasetId: z.string().min(1).max(40) }))
    .mutation(({ ctx, input }) => deleteDataset(ctx.store, input.datasetId)),
});
