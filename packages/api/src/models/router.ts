import { TRPCError } from '@trpc/server';
import { Action, Domain, Observation, SimSpec } from '@terrarium/schema';
import { z } from 'zod';
import { endpointAllowlistFromEnv, parseSimSpec } from '../simulate/sim-spec';
import { createRouter, researcherProcedure, simulatorTrpcError } from '../trpc';
import { checkEndpoint } from './endpoint-health';
import { modelEvaluation, modelSplit } from './model-evaluation';
import { neighborsOfAction, neighborsOfStep } from './prompt-neighbors';

/** Neighbors per prompt: the shipped model reads 2; a few more for a look at the ranking. */
const K = z.number().int().min(1).max(8);

const NeighborsInput = z.union([
  z.object({
    trajectoryId: z.string().min(1),
    step: z.number().int().nonnegative(),
    k: K.optional(),
  }),
  z.object({
    dataset: z.string().trim().min(1).max(200),
    domain: Domain,
    action: Action,
    // The playground's optional earlier transition; the ranking reads only the last one.
    history: z
      .array(z.object({ action: Action, observation: Observation }))
      .max(4)
      .optional(),
    k: K.optional(),
  }),
]);

export const modelsRouter = createRouter({
  /** GET {base}/models of an `openai:URL#MODEL` simulator, through the server's allowlist. */
  endpointHealth: researcherProcedure
    .input(z.object({ spec: SimSpec }))
    .query(async ({ input }) => {
      const parsed = parseSimSpec(input.spec, 'spec');
      if (parsed.kind !== 'openai') {
        throw new TRPCError({
          code: 'BAD_REQUEST',
          message: `spec: "${input.spec}" is not an openai:URL#MODEL endpoint`,
        });
      }
      return checkEndpoint(parsed.baseUrl, parsed.model, {
        allowlist: endpointAllowlistFromEnv(),
        fetch,
      });
    }),
  /**
   * The recorded transitions the model's prompt shows for a stored step (its dataset, the
   * trajectory left out) or for a typed action (a whole dataset): the browser decodes locally.
   */
  neighbors: researcherProcedure.input(NeighborsInput).query(async ({ ctx, input }) => {
    try {
      return 'trajectoryId' in input
        ? await neighborsOfStep(ctx.store, input.trajectoryId, input.step, input.k)
        : await neighborsOfAction(
            ctx.store,
            input.dataset,
            { domain: input.domain, action: input.action, history: input.history ?? [] },
            input.k,
          );
    } catch (error) {
      throw simulatorTrpcError(error);
    }
  }),
  /** A served model folder's task split (its split.json): the tasks it trained on and held out. */
  split: researcherProcedure
    .input(z.object({ model: z.string().min(1).max(200) }))
    .query(async ({ input }) => {
      try {
        return await modelSplit(input.model);
      } catch (error) {
        throw simulatorTrpcError(error);
      }
    }),
  /** A served model folder's evaluation table (its fidelity.json). */
  evaluation: researcherProcedure
    .input(z.object({ model: z.string().min(1).max(200) }))
    .query(async ({ input }) => {
      try {
        return await modelEvaluation(input.model);
      } catch (error) {
        throw simulatorTrpcError(error);
      }
    }),
});
