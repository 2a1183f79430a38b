import { z } from 'zod';
import type { ChatMessage } from '../prompt/template';

/** The parts of the OpenAI chat completion protocol the client reads; other fields are ignored. */

const ReportedUsage = z.object({
  prompt_tokens: z.number().int().nonnegative(),
  completion_tokens: z.number().int().nonnegative(),
});

export const ChatCompletion = z.object({
  model: z.string().optional(),
  choices: z
    .array(
      z.object({
        message: z.object({
          content: z.string().nullish(),
          reasoning_content: z.string().nullish(),
          // vLLM's newer reasoning parsers name the field `reasoning`.
          reasoning: z.string().nullish(),
        }),
        finish_reason: z.string().nullish(),
      }),
    )
    .min(1),
  usage: ReportedUsage.nullish(),
});

/** One streamed chunk, reduced to what the client reads. */
export interface ChunkDelta {
  model: string | null;
  content: string;
  reasoning: string;
  finishReason: string | null;
  usage: { prompt_tokens: number; completion_tokens: number } | null;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function text(value: unknown): string {
  return typeof value === 'string' ? value : '';
}

function isTokenCount(value: unknown): value is number {
  return typeof value === 'number' && Number.isInteger(value) && value >= 0;
}

/**
 * Reads a `chat.completion.chunk` (choice 0). Hand-written guards rather than zod: this runs for
 * every streamed token, and a schema parse per chunk cost a third of the client's throughput.
 * Null when the value is not a chunk.
 */
export function readChunk(json: unknown): ChunkDelta | null {
  if (!isRecord(json)) return null;
  const { choices, usage, model } = json;
  if (choices !== undefined && !Array.isArray(choices)) return null;
  const choice: unknown = Array.isArray(choices) ? choices[0] : undefined;
  let delta: Record<string, unknown> = {};
  let finishReason: string | null = null;
  if (isRecord(choice)) {
    if (isRecord(choice['delta'])) delta = choice['delta'];
    if (typeof choice['finish_reason'] === 'string') finishReason = choice['finish_reason'];
  } else if (choice !== undefined) {
    return null;
  }
  let tokens: ChunkDelta['usage'] = null;
  if (isRecord(usage)) {
    const { prompt_tokens: input, completion_tokens: output } = usage;
    if (!isTokenCount(input) || !isTokenCount(output)) return null;
    tokens = { prompt_tokens: input, completion_tokens: output };
  }
  return {
    model: typeof model === 'string' ? model : null,
    content: text(delta['content']),
    // vLLM's newer reasoning parsers name the field `reasoning`.
    reasoning: text(delta['reasoning_content']) || text(delta['reasoning']),
    finishReason,
    usage: tokens,
  };
}

/** The message of an `{"error": …}` body (OpenAI, vLLM and Ollama shapes), else null. */
export function errorMessageOf(body: unknown): string | null {
  if (!isRecord(body) || !('error' in body)) return null;
  const { error } = body;
  if (typeof error === 'string') return error;
  if (isRecord(error) && typeof error['message'] === 'string') return error['message'];
  return JSON.stringify(error);
}

export interface ChatRequest {
  messages: ChatMessage[];
  temperature?: number;
  maxTokens?: number;
  stop?: string[];
  seed?: number;
  /** Default true: stream the reply as server-sent events. */
  stream?: boolean;
  signal?: AbortSignal;
  onToken?: (text: string, channel: 'content' | 'reasoning') => void;
}

export function requestBody(model: string, request: ChatRequest): string {
  const stream = request.stream ?? true;
  return JSON.stringify({
    model,
    messages: request.messages,
    temperature: request.temperature ?? 0,
    ...(request.maxTokens === undefined ? {} : { max_tokens: request.maxTokens }),
    ...(request.stop === undefined || request.stop.length === 0 ? {} : { stop: request.stop }),
    ...(request.seed === undefined ? {} : { seed: request.seed }),
    stream,
    ...(stream ? { stream_options: { include_usage: true } } : {}),
  });
}
