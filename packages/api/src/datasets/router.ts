import { z } from 'zod';
import { createRouter, researcherProcedure } from '../trpc';

export const datasetsRouter = createRouter({
  list: researcherProcedure.query(({ ctx }) => ctx.store.listDatasets()),
  quarantine: researcherProcedure
    .input(z.object({ datasetId: z.string().min(1) }))
    .query(({ ctx, input }) => ctx.store.listQuarantined(input.datasetId)),
});
