import { z } from 'zod';
import { componentSchemas, type JsonObject, type OpenApiPart } from './openapi-schemas';

const Breakdown = z.object({
  id: z.string(),
  kind: z.enum(['rule', 'criterion']),
  score: z.number().min(0).max(1).nullable().describe('null: the entry does not apply to the item'),
  weight: z.number().describe('criteria: signed (pitfalls negative)'),
  detail: z.string().optional(),
});

const RewardResponse = z.object({
  ruleSet: z.object({ name: z.string(), version: z.number().int().nullable() }),
  results: z.array(
    z.object({
      score: z
        .number()
        .min(0)
        .max(1)
        .nullable()
        .describe('null: nothing in the rule set applies to the item (n/a, not 0)'),
      breakdown: z.array(Breakdown),
    }),
  ),
});

const OpenRlhfResponse = z.object({
  rewards: z.array(z.number()),
  scores: z.array(z.number()),
  extra_logs: z
    .record(z.string(), z.array(z.number()))
    .describe(
      'per breakdown entry that applies to some sample, one value for every sample; where it does not apply, the na value (0 without one)',
    ),
});

const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
const json = (schema: JsonObject) => ({ content: { 'application/json': { schema } } });
const errors = {
  '400': { description: 'Bad request; `error.issues` names the fields.', ...json(ref('Error')) },
  '401': { description: 'Missing or wrong token.', ...json(ref('Error')) },
  '404': { description: 'No such rule set or version.', ...json(ref('Error')) },
  '504': { description: 'The batch exceeded the per-request time limit.', ...json(ref('Error')) },
};

/** `/v1/reward` and `/v1/reward/openrlhf` in the OpenAPI document. */
export function rewardOpenApi(request: z.ZodType, openRlhfRequest: z.ZodType): OpenApiPart {
  return {
    paths: {
      '/v1/reward': {
        post: {
          summary:
            'Scores predictions with a rule set (rules locally, criteria by the configured judge)',
          operationId: 'reward',
          requestBody: { required: true, ...json(ref('RewardRequest')) },
          responses: {
            '200': {
              description: 'One result per item, in order.',
              ...json(ref('RewardResponse')),
            },
            ...errors,
          },
        },
      },
      '/v1/reward/openrlhf': {
        post: {
          summary:
            "OpenRLHF's remote reward protocol: query = prompt + response, labels = references",
          operationId: 'rewardOpenRlhf',
          parameters: [
            { name: 'ruleSet', in: 'query', required: true, schema: { type: 'string' } },
            {
              name: 'version',
              in: 'query',
              required: false,
              schema: { type: 'integer', minimum: 1 },
            },
            { name: 'domain', in: 'query', required: false, schema: { type: 'string' } },
            {
              name: 'na',
              in: 'query',
              required: false,
              description:
                'The reward of a sample nothing in the rule set applies to; without it such a batch is a 400 naming the samples',
              schema: { type: 'number' },
            },
            {
              name: 'token',
              in: 'query',
              required: false,
              description:
                'The program token, for trainers that cannot set headers (OpenRLHF); Authorization: Bearer works too',
              schema: { type: 'string' },
            },
          ],
          requestBody: { required: true, ...json(ref('OpenRlhfRequest')) },
          responses: {
            '200': { description: 'Rewards in query order.', ...json(ref('OpenRlhfResponse')) },
            ...errors,
          },
        },
      },
    },
    schemas: {
      ...componentSchemas({
        RewardRequest: request,
        RewardResponse,
        OpenRlhfRequest: openRlhfRequest,
        OpenRlhfResponse,
      }),
    },
  };
}
