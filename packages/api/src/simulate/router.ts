import { TRPCError } from '@trpc/server';
import { Action, SimSpec } from '@terrarium/schema';
import { z } from 'zod';
import { createRouter, publicProcedure } from '../trpc';
import { availableSimulators, SimulatorError } from './sim-spec';
import {
  forkTrajectory,
  forkTrajectoryEvents,
  MAX_FORK_CONTINUE_STEPS,
  type ForkRequest,
} from './fork-trajectory';
import { simulateTrajectory } from './simulate-trajectory';

export const MAX_SIMULATED_STEPS = 500;

/** A SimulatorError as the tRPC error of the same meaning. */
export function simulatorTrpcError(error: unknown): unknown {
  if (!(error instanceof SimulatorError)) return error;
  const code =
    error.status === 404 ? 'NOT_FOUND' : error.status === 501 ? 'NOT_IMPLEMENTED' : 'BAD_REQUEST';
  return new TRPCError({ code, message: error.message, cause: error });
}

const ForkInput = z.object({
  trajectoryId: z.string().min(1),
  step: z.number().int().nonnegative(),
  action: Action,
  sim: SimSpec,
  continueSteps: z.number().int().nonnegative().max(MAX_FORK_CONTINUE_STEPS).optional(),
  dataset: z.string().trim().min(1).max(200).optional(),
});

function forkRequest(input: z.infer<typeof ForkInput>): ForkRequest {
  return {
    trajectoryId: input.trajectoryId,
    step: input.step,
    action: input.action,
    sim: input.sim,
    ...(input.continueSteps === undefined ? {} : { continueSteps: input.continueSteps }),
    ...(input.dataset === undefined ? {} : { dataset: input.dataset }),
  };
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
  /** "What if": the trajectory with the action at `step` replaced, continued by `sim` (stored). */
  fork: publicProcedure.input(ForkInput).mutation(async ({ ctx, input, signal }) => {
    try {
      return await forkTrajectory(
        ctx.store,
        forkRequest(input),
        signal === undefined ? {} : { signal },
      );
    } catch (error) {
      throw simulatorTrpcError(error);
    }
  }),
  /** `fork` with its progress: `progress` events, then `done` with the stored fork. */
  forkEvents: publicProcedure.input(ForkInput).subscription(async function* ({
    ctx,
    input,
    signal,
  }) {
    try {
      yield* forkTrajectoryEvents(
        ctx.store,
        forkRequest(input),
        signal === undefined ? {} : { signal },
      );
    } catch (error) {
      throw simulatorTrpcError(error);
    }
  }),
});
