import { assertAllowedHost, chatCompletionsUrl, networkFailure } from '@terrarium/worlds';
import { z } from 'zod';
import { moveFromText, moveFromToolCall, type AgentMove } from '../tasks/episode';
import type { Policy } from './policy';

export interface OpenAIPolicyOptions {
  /** e.g. `http://127.0.0.1:8000/v1` (with or without `/v1`). */
  baseUrl: string;
  model: string;
  /** Passed in: domain code does no I/O of its own. */
  fetch: typeof fetch;
  /** Hosts the endpoint may be on (the product's endpoint allowlist). */
  allowlist?: readonly string[];
  apiKey?: string;
  temperature?: number;
  maxTokens?: number;
}

type ChatMessage =
  | { role: 'system' | 'user'; content: string }
  | {
      role: 'assistant';
      content: string | null;
      tool_calls?: {
        id: string;
        type: 'function';
        function: { name: string; arguments: string };
      }[];
    }
  | { role: 'tool'; tool_call_id: string; content: string };

const ChatResponse = z.object({
  choices: z
    .array(
      z.object({
        message: z.object({
          content: z.string().nullable().optional(),
          tool_calls: z
            .array(
              z.object({
                id: z.string(),
                function: z.object({ name: z.string(), arguments: z.string() }),
              }),
            )
            .nullable()
            .optional(),
        }),
      }),
    )
    .min(1),
});

/** The error an endpoint's answer is turned into; the job stores its message as the run's error. */
export class PolicyEndpointError extends Error {
  override readonly name = 'PolicyEndpointError';
}

function toolsFor(kind: 'bash' | 'sql') {
  const field = kind === 'sql' ? 'query' : 'command';
  return [
    {
      type: 'function',
      function: {
        name: kind,
        description: kind === 'sql' ? 'Run one SQL query.' : 'Run one bash command line.',
        parameters: {
          type: 'object',
          properties: { [field]: { type: 'string' } },
          required: [field],
        },
      },
    },
    {
      type: 'function',
      function: {
        name: 'submit',
        description:
          'End the episode. Give `answer` to submit it; without it the last output is the answer.',
        parameters: { type: 'object', properties: { answer: { type: 'string' } } },
      },
    },
  ];
}

function parsedArguments(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}

/**
 * A policy behind any OpenAI-compatible chat endpoint with tool calling: the goal and the first
 * observation as the user turn, a `bash` (or `sql`) tool and a `submit` tool, one tool call per
 * turn (the first when a model sends several), tool results as the following turns. A reply
 * without a tool call is read as a raw command (`submit …` ends the episode).
 */
export function openAIPolicy(options: OpenAIPolicyOptions): Policy {
  const url = chatCompletionsUrl(options.baseUrl);
  assertAllowedHost(url, options.allowlist);
  return {
    name: `openai:${options.baseUrl}#${options.model}`,
    start(task, world, seed) {
      const kind = world.kind === 'sql' ? 'sql' : 'bash';
      const messages: ChatMessage[] = [
        {
          role: 'system',
          content: `You act in a ${kind === 'sql' ? 'SQL database' : 'Linux shell'}. Call \`${kind}\` to act and \`submit\` when the task is done. At most ${task.maxSteps} moves.`,
        },
      ];
      const screen = kind === 'sql' ? 'The database shows:' : 'The terminal shows:';
      let pendingCall: string | null = null;
      let started = false;
      return {
        async next(observation): Promise<AgentMove> {
          if (pendingCall !== null)
            messages.push({ role: 'tool', tool_call_id: pendingCall, content: observation });
          else
            messages.push({
              role: 'user',
              content: started
                ? `${screen}\n${observation}`
                : `${task.goal}\n\n${screen}\n${observation}`,
            });
          started = true;
          pendingCall = null;
          const response = await options
            .fetch(url, {
              method: 'POST',
              headers: {
                'content-type': 'application/json',
                ...(options.apiKey === undefined
                  ? {}
                  : { authorization: `Bearer ${options.apiKey}` }),
              },
              body: JSON.stringify({
                model: options.model,
                messages,
                tools: toolsFor(kind),
                tool_choice: 'auto',
                temperature: options.temperature ?? 0,
                seed,
                ...(options.maxTokens === undefined ? {} : { max_tokens: options.maxTokens }),
              }),
            })
            .catch((error: unknown) => {
              if (error instanceof Error && error.name === 'AbortError') throw error;
              // walk 43: a run failed with "fetch failed", naming neither the endpoint nor why.
              throw new PolicyEndpointError(
                `policy endpoint ${url} could not be reached: ${networkFailure(error)}`,
              );
            });
          if (!response.ok)
            throw new PolicyEndpointError(
              `policy endpoint ${url} answered ${response.status}: ${(await response.text()).slice(0, 200)}`,
            );
          const parsed = ChatResponse.safeParse(await response.json());
          if (!parsed.success)
            throw new PolicyEndpointError(
              `policy endpoint ${url} sent no chat completion: ${parsed.error.issues[0]?.message ?? ''}`,
            );
          const message = parsed.data.choices[0]?.message;
          const call = message?.tool_calls?.[0];
          if (call !== undefined) {
            messages.push({
              role: 'assistant',
              content: message?.content ?? null,
              tool_calls: [{ id: call.id, type: 'function', function: call.function }],
            });
            pendingCall = call.id;
            const args = parsedArguments(call.function.arguments);
            if (args === null)
              return {
                kind: 'invalid',
                reason: `the arguments of ${call.function.name} are not JSON`,
              };
            return moveFromToolCall(world, call.function.name, z.json().parse(args));
          }
          const text = message?.content ?? '';
          messages.push({ role: 'assistant', content: text });
          // A text turn has no call id to answer: the next observation goes in a user turn.
          return moveFromText(world, text);
        },
      };
    },
  };
}
