import { TRPCError } from '@trpc/server';
import { SimSpec } from '@terrarium/schema';
import { z } from 'zod';
import { endpointAllowlistFromEnv, parseSimSpec } from '../simulate/sim-spec';
import { createRouter, researcherProcedure } from '../trpc';
import { checkEndpoint } from './endpoint-health';

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
});
