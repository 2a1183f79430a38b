import { SimulationResult } from '@terrarium/schema';
import { z } from 'zod';
import { componentSchemas, type JsonObject, type OpenApiPart } from './openapi-schemas';

const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
const json = (schema: JsonObject) => ({ content: { 'application/json': { schema } } });

/** Errors in OpenAI's shape: what OpenAI clients read. */
const OpenAIError = z.object({
  error: z.object({
    message: z.string(),
    type: z.enum(['invalid_request_error', 'server_error']),
    param: z.string().nullable().describe('the request field at fault, when one is'),
    code: z.null(),
  }),
});

const ChatCompletion = z.object({
  id: z.string(),
  object: z.literal('chat.completion'),
  created: z.number().int(),
  model: z.string(),
  choices: z.array(
    z.object({
      index: z.literal(0),
      message: z.object({
        role: z.literal('assistant'),
        content: z.string().describe('the predicted observation'),
        reasoning_content: z.string().optional(),
      }),
      finish_reason: z
        .enum(['stop', 'length'])
        .describe('`length`: the token budget or the context cut the answer'),
    }),
  ),
  usage: z.object({
    prompt_tokens: z.number().int(),
    completion_tokens: z.number().int(),
    total_tokens: z.number().int(),
  }),
  terrarium: z
    .object({
      provenance: z.record(z.string(), z.unknown()),
      latencyMs: z.number(),
      neighbors: z.array(z.unknown()).optional(),
    })
    .describe('where the answer came from; `neighbors` when `terrarium.neighbors` was asked'),
});

const ModelList = z.object({
  object: z.literal('list'),
  data: z.array(z.object({ id: z.string(), object: z.literal('model') })),
});

const openAIErrors = {
  '400': {
    description: 'Bad request; `error.param` names the field.',
    ...json(ref('OpenAIError')),
  },
  '401': { description: 'Missing or wrong token.', ...json(ref('OpenAIError')) },
  '413': { description: "The body exceeds the server's limit.", ...json(ref('OpenAIError')) },
  '404': {
    description:
      'Not a configured simulator, an unknown dataset, or a replay miss with no fallback.',
    ...json(ref('OpenAIError')),
  },
};

/** `/v1/chat/completions` and `/v1/models` in the OpenAPI document. */
export function chatOpenApi(request: z.ZodType): OpenApiPart {
  return {
    paths: {
      '/v1/chat/completions': {
        post: {
          summary:
            'A simulator answers the last user message (the action) given the chat (the history)',
          operationId: 'chatCompletion',
          requestBody: { required: true, ...json(ref('ChatCompletionRequest')) },
          responses: {
            '200': {
              description:
                'The predicted observation; with `stream: true`, `chat.completion.chunk` server-sent events instead.',
              ...json(ref('ChatCompletion')),
            },
            ...openAIErrors,
          },
        },
      },
      '/v1/models': {
        get: {
          summary:
            'The simulators served, with `replay@DATASET` and `retrieval@DATASET` per dataset',
          operationId: 'listModels',
          responses: {
            '200': { description: 'The model ids', ...json(ref('ModelList')) },
            '401': openAIErrors['401'],
          },
        },
      },
    },
    schemas: {
      ...componentSchemas({
        ChatCompletionRequest: request,
        ChatCompletion,
        ModelList,
        OpenAIError,
      }),
    },
  };
}

/** `/api/simulate` in the OpenAPI document. */
export function simulateOpenApi(params: z.ZodType): OpenApiPart {
  return {
    paths: {
      '/api/simulate': {
        post: {
          summary:
            'Simulates a stored trajectory open loop: each step with the real and the predicted observation and their scores',
          operationId: 'simulate',
          requestBody: { required: true, ...json(ref('SimulateParams')) },
          responses: {
            '200': {
              description:
                'Every step; one an endpoint could not answer carries its `error` and is not scored.',
              ...json(ref('SimulationResult')),
            },
            '400': {
              description: 'Bad request; `error.issues` names the fields.',
              ...json(ref('Error')),
            },
            '401': { description: 'Missing or wrong token.', ...json(ref('Error')) },
            '404': { description: 'No such dataset or trajectory.', ...json(ref('Error')) },
          },
        },
      },
    },
    schemas: {
      ...componentSchemas({ SimulateParams: params, SimulationResult }),
    },
  };
}
