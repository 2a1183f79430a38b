import { Action, SimSpec } from '@terrarium/schema';
import type { PromptFolder } from '@terrarium/worlds';
import { z } from 'zod';
import { createRouter, researcherProcedure, simulatorTrpcError } from '../trpc';
import { availableSimulators } from './sim-spec';
import {
  forkTrajectory,
  forkTrajectoryEvents,
  MAX_FORK_CONTINUE_STEPS,
  type ForkRequest,
} from './fork-trajectory';
import { MAX_SIMULATED_STEPS, MaxSimulatedSteps } from './simulate-caps';
import {
  simulateTrajectory,
  simulateTrajectoryEvents,
  type SimulateOptions,
} from './simulate-trajectory';

export { MAX_SIMULATED_STEPS } from './simulate-caps';

const RunInput = z.object({
  trajectoryId: z.string().min(1),
  sim: SimSpec,
  maxSteps: MaxSimulatedSteps.optional(),
});

/** What `run` and `runEvents` hand the simulation: the cap, the server's prompts, the signal. */
function runOptions(
  input: z.infer<typeof RunInput>,
  prompts: PromptFolder | null | undefined,
  signal: AbortSignal | undefined,
): SimulateOptions {
  return {
    maxSteps: input.maxSteps ?? MAX_SIMULATED_STEPS,
    prompts: prompts ?? null,
    ...(signal === undefined ? {} : { signal }),
  };
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
  available: researcherProcedure.query(() => availableSimulators()),
  run: researcherProcedure.input(RunInput).mutation(async ({ ctx, input, signal }) => {
    try {
      return await simulateTrajectory(
        ctx.store,
        input.trajectoryId,
        input.sim,
        runOptions(input, ctx.prompts, signal),
      );
    } catch (error) {
      throw simulatorTrpcError(error);
    }
  }),
  /** `run` with its progress: `started`, each step as it is scored, then `done`. */
  runEvents: researcherProcedure.input(RunInput).subscription(async function* ({
    ctx,
    input,
    signal,
  }) {
    try {
      yield* simulateTrajectoryEvents(
        ctx.store,
        input.trajectoryId,
        input.sim,
        runOptions(input, ctx.prompts, signal),
      );
    } catch (error) {
      throw simulatorTrpcError(error);
    }
  }),
  /** "What if": the trajectory with the action at `step` replaced, continued by `sim` (stored). */
  fork: researcherProcedure.input(ForkInput).mutation(async ({ ctx, input, signal }) => {
    try {
      return await forkTrajectory(ctx.store, forkRequest(input), {
        prompts: ctx.prompts ?? null,
        ...(signal === undefined ? {} : { signal }),
      });
    } catch (error) {
      throw simulatorTrpcError(error);
    }
  }),
  /** `fork` with its progress: `progress` events, then `done` with the stored fork. */
  forkEvents: researcherProcedure.input(ForkInput).subscription(async function* ({
    ctx,
    input,
    signal,
  }) {
    try {
      yield* forkTrajectoryEvents(ctx.store, forkRequest(input), {
        prompts: ctx.prompts ?? null,
        ...(signal === undefined ? {} : { signal }),
      });
    } catch (error) {
      throw simulatorTrpcError(error);
    }
  }),
});
