import { TRPCError } from '@trpc/server';
import { SimSpec } from '@terrarium/schema';
import { z } from 'zod';
import { createRouter, publicProcedure } from '../trpc';
import { availableSimulators, SimulatorError } from './sim-spec';
import { simulateTrajectory } from './simulate-trajectory';

export const MAX_SIMULATED_STEPS = 500;

/** A SimulatorError as the tRPC error of the same meaning. */
export function simulatorTrpcError(error: unknown): unknown {
  if (!(error instanceof SimulatorError)) return error;
  const code =
    error.status === 404 ? 'NOT_FOUND' : error.status === 501 ? 'NOT_IMPLEMENTED' : 'BAD_REQUEST';
  return new TRPCError({ code, message: error.message, cause: error });
}

export const simulateRouter = createRouter({
  available: publicProcedure.query(() => availableSimulators()),
  run: publicProcedure
    .input(
      z.object({
        trajectoryId: z.string().min(1),
        sim: SimSpec,
        maxSteps: z.number().int().positive().max(MAX_SIMULATED_STEPS).optional(),
      }),
    )
    .mutation(async ({ ctx, input, signal }) => {
      try {
        return await simulateTrajectory(ctx.store, input.trajectoryId, input.sim, {
          maxSteps: input.maxSteps ?? MAX_SIMULATED_STEPS,
          ...(signal === undefined ? {} : { signal }),
        });
      } catch (error) {
        throw simulatorTrpcError(error);
      }
    }),
});
