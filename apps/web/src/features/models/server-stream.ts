import type { PromptNeighbor } from '@terrarium/inference';
import { apiErrorMessage, type Action } from '@terrarium/schema';
import {
  DEFAULT_TEMPLATES,
  renderMessages,
  selectTemplate,
  type SimContext,
  type Transition,
} from '@terrarium/worlds';
import { sessionHeaders } from '../../app/session-proof';
import { chatStreamEvents, SseDataParser, type ChatStreamUsage } from './chat-stream';

export interface ServerStreamRequest {
  /** A simulator the server lists (`GET /v1/models`), e.g. `onnx:models/terrarium-wm-tiny`. */
  model: string;
  context: SimContext;
  history: readonly Transition[];
  action: Action;
  maxTokens: number;
  /**
   * Replay and retrieval draw on a dataset (id or name); a local model finds its prompt's
   * neighbors there.
   */
  dataset?: string;
  /** Ask for the neighbors a local model's prompt showed (`terrarium.neighbors`). */
  neighbors?: boolean;
  signal?: AbortSignal;
  onText(text: string): void;
}

export interface ServerStreamResult {
  text: string;
  reasoning: string;
  /** OpenAI's `finish_reason` (a stream that ends without one is an error). */
  finishReason: string;
  usage: ChatStreamUsage | null;
  provenance: unknown;
  /** The neighbors a local model's prompt showed, when asked for (null: none were reported). */
  neighbors: PromptNeighbor[] | null;
  /** Content pieces received: one per token for a local model, one in all for an endpoint. */
  pieces: number;
}

/**
 * One prediction from the server's OpenAI-compatible endpoint, streamed: the chat is rendered with
 * the default templates, as every client of `/v1/chat/completions` renders it.
 */
export async function streamFromServer(request: ServerStreamRequest): Promise<ServerStreamResult> {
  const template = selectTemplate(DEFAULT_TEMPLATES, request.context.domain);
  const messages = renderMessages(template, request.context, [...request.history], request.action);
  const response = await fetch('/v1/chat/completions', {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...sessionHeaders() },
    body: JSON.stringify({
      model: request.model,
      messages,
      stream: true,
      temperature: 0,
      max_tokens: request.maxTokens,
      terrarium: {
        ...(request.dataset === undefined ? {} : { dataset: request.dataset }),
        ...(request.neighbors === true ? { neighbors: true } : {}),
      },
    }),
    ...(request.signal === undefined ? {} : { signal: request.signal }),
  });
  if (!response.ok || response.body === null) {
    const body: unknown = await response.json().catch(() => null);
    throw new Error(apiErrorMessage(body) ?? `the server answered ${response.status}`);
  }
  const result: Omit<ServerStreamResult, 'finishReason'> & { finishReason: string | null } = {
    text: '',
    reasoning: '',
    finishReason: null,
    usage: null,
    provenance: null,
    neighbors: null,
    pieces: 0,
  };
  const parser = new SseDataParser();
  const decoder = new TextDecoder();
  const reader = response.body.getReader();
  const apply = (data: string): void => {
    for (const event of chatStreamEvents(data)) {
      if (event.type === 'content') {
        result.text += event.text;
        result.pieces += 1;
        request.onText(event.text);
      } else if (event.type === 'reasoning') result.reasoning += event.text;
      else if (event.type === 'finish') result.finishReason = event.reason;
      else if (event.type === 'usage') {
        result.usage = event.usage;
        result.provenance = event.provenance;
        result.neighbors = event.neighbors;
      }
    }
  };
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    for (const data of parser.push(decoder.decode(value, { stream: true }))) apply(data);
  }
  for (const data of parser.push(decoder.decode())) apply(data);
  for (const data of parser.end()) apply(data);
  const { finishReason } = result;
  if (finishReason === null) throw new Error('the stream ended before the prediction did');
  return { ...result, finishReason };
}
