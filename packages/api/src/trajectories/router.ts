import { TRPCError } from '@trpc/server';
import { TrajectoryFilter } from '@terrarium/schema';
import { z } from 'zod';
import { createRouter, researcherProcedure } from '../trpc';

export const MAX_TRAJECTORY_PAGE = 500;
export const MAX_STEP_WINDOW = 200;

const trajectoryId = z.string().min(1);
const offset = z.number().int().nonnegative();

export const trajectoriesRouter = createRouter({
  list: researcherProcedure
    .input(
      z.object({
        filter: TrajectoryFilter,
        offset,
        limit: z.number().int().positive().max(MAX_TRAJECTORY_PAGE),
      }),
    )
    .query(({ ctx, input }) =>
      ctx.store.listTrajectories(input.filter, { offset: input.offset, limit: input.limit }),
    ),
  get: researcherProcedure.input(z.object({ trajectoryId })).query(async ({ ctx, input }) => {
    const detail = await ctx.store.getTrajectory(input.trajectoryId);
    if (!detail) {
      throw new TRPCError({
        code: 'NOT_FOUND',
        message: `trajectoryId: no trajectory ${input.trajectoryId}`,
      });
    }
    return detail;
  }),
  markers: researcherProcedure
    .input(z.object({ trajectoryId }))
    .query(({ ctx, input }) => ctx.store.getStepMarkers(input.trajectoryId)),
  steps: researcherProcedure
    .input(
      z.object({
        trajectoryId,
        offset,
        limit: z.number().int().positive().max(MAX_STEP_WINDOW),
      }),
    )
    .query(({ ctx, input }) => ctx.store.getSteps(input.trajectoryId, input.offset, input.limit)),
});
