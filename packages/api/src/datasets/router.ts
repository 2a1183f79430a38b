import { z } from 'zod';
import { createRouter, publicProcedure } from '../trpc';

export const datasetsRouter = createRouter({
  list: publicProcedure.query(({ ctx }) => ctx.store.listDatasets()),
  quarantine: publicProcedure
    .input(z.object({ datasetId: z.string().min(1) }))
    .query(({ ctx, input }) => ctx.store.listQuarantined(input.datasetId)),
});
