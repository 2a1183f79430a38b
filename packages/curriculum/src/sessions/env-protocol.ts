import type { World } from '@terrarium/executable-worlds';
import { JsonValue } from '@terrarium/schema';
import { z } from 'zod';
import { moveFromText, moveFromToolCall, type AgentMove } from '../tasks/episode';
import { MAX_EPISODE_STEPS } from '../tasks/task';

/**
 * `POST /v1/envs` body. Strict: a misspelt field (`maxstep`) is refused by name rather than
 * ignored, so a trainer never runs episodes under settings it did not ask for.
 */
export const CreateEnvRequest = z
  .strictObject({
    task: z.string().min(1).optional(),
    world: z.string().min(1).optional(),
    params: z.record(z.string(), z.json()).optional(),
    seed: z
      .number()
      .int()
      .min(0)
      .max(2 ** 32 - 1)
      .optional(),
    maxSteps: z.number().int().positive().max(MAX_EPISODE_STEPS).optional(),
  })
  .refine((body) => body.task !== undefined || body.world !== undefined, {
    message: 'name a task or a world',
    path: ['task'],
  })
  .refine((body) => body.task === undefined || body.world === undefined, {
    message: 'a task brings its own world: name a task or a world, not both',
    path: ['world'],
  });
export type CreateEnvRequest = z.infer<typeof CreateEnvRequest>;

/** An OpenAI tool call as the chat completions API returns it (arguments are a JSON string). */
export const OpenAIToolCall = z.object({
  id: z.string().optional(),
  type: z.literal('function').optional(),
  function: z.object({
    name: z.string().min(1),
    arguments: z.union([z.string(), z.record(z.string(), z.json())]),
  }),
});
export type OpenAIToolCall = z.infer<typeof OpenAIToolCall>;

/**
 * `POST /v1/envs/{id}/step` body: `{"action": "ls -la"}` (raw text), `{"action": <tool call>}`,
 * `{"tool_call": <tool call>}`, or a bare tool call. A text/plain body is raw text too.
 * The two wrappers are strict, as the create body is: `{"action", "tool_call"}` would be two
 * actions, and a field beside the action (`seed`, `session`) would be ignored. A bare tool call
 * is not: clients pass on what their SDK returned (a streamed call carries `index`).
 */
export const StepEnvRequest = z.union([
  z.strictObject({ action: z.union([z.string(), OpenAIToolCall]) }),
  z.strictObject({ tool_call: OpenAIToolCall }),
  OpenAIToolCall,
]);

/** The fields a refused step body should not have had, for an error that names them. */
export function stepBodyExtras(body: unknown): string[] {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return [];
  const keys = Object.keys(body);
  if (keys.includes('action')) return keys.filter((key) => key !== 'action');
  if (keys.includes('tool_call')) return keys.filter((key) => key !== 'tool_call');
  return [];
}
export type StepEnvRequest = z.infer<typeof StepEnvRequest>;

function parseArguments(raw: string | Record<string, JsonValue>): JsonValue | undefined {
  if (typeof raw !== 'string') return raw;
  try {
    const parsed: unknown = JSON.parse(raw === '' ? '{}' : raw);
    const json = JsonValue.safeParse(parsed);
    return json.success ? json.data : undefined;
  } catch {
    return undefined;
  }
}

function moveFromCall(world: World, call: OpenAIToolCall): AgentMove {
  const args = parseArguments(call.function.arguments);
  if (args === undefined) {
    return { kind: 'invalid', reason: `the arguments of ${call.function.name} are not JSON` };
  }
  return moveFromToolCall(world, call.function.name, args);
}

export function moveFromRequest(world: World, body: StepEnvRequest): AgentMove {
  if ('action' in body) {
    return typeof body.action === 'string'
      ? moveFromText(world, body.action)
      : moveFromCall(world, body.action);
  }
  if ('tool_call' in body) return moveFromCall(world, body.tool_call);
  return moveFromCall(world, body);
}
