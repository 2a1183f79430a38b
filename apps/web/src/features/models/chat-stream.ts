/**
 * Incremental `text/event-stream` reader: feed it text as it arrives, get back the data of each
 * complete event (its `data:` lines joined by newlines). Comments and other fields are skipped.
 */
export class SseDataParser {
  private buffer = '';
  private data: string[] = [];

  push(text: string): string[] {
    this.buffer += text;
    const events: string[] = [];
    let start = 0;
    for (;;) {
      const end = this.nextLineEnd(start);
      if (end === null) break;
      this.line(this.buffer.slice(start, end.at), events);
      start = end.at + end.length;
    }
    this.buffer = this.buffer.slice(start);
    return events;
  }

  /** The event left without a closing blank line when the stream ends. */
  end(): string[] {
    const events: string[] = [];
    if (this.buffer !== '') this.line(this.buffer, events);
    this.buffer = '';
    if (this.data.length > 0) events.push(this.data.join('\n'));
    this.data = [];
    return events;
  }

  private nextLineEnd(from: number): { at: number; length: number } | null {
    for (let at = from; at < this.buffer.length; at++) {
      const char = this.buffer[at];
      if (char === '\n') return { at, length: 1 };
      if (char === '\r') {
        // A \r at the end may be the first half of a \r\n still in the next chunk.
        if (at === this.buffer.length - 1) return null;
        return { at, length: this.buffer[at + 1] === '\n' ? 2 : 1 };
      }
    }
    return null;
  }

  private line(line: string, events: string[]): void {
    if (line === '') {
      if (this.data.length > 0) events.push(this.data.join('\n'));
      this.data = [];
    } else if (line.startsWith('data:')) {
      this.data.push(line.slice(line[5] === ' ' ? 6 : 5));
    }
  }
}

import type { PromptNeighbor } from '@terrarium/inference';
import { Action } from '@terrarium/schema';

export interface ChatStreamUsage {
  promptTokens: number;
  completionTokens: number;
}

/** What one `chat.completion.chunk` event carries that the playground shows. */
export type ChatStreamEvent =
  | { type: 'content'; text: string }
  | { type: 'reasoning'; text: string }
  | { type: 'finish'; reason: string }
  | {
      type: 'usage';
      usage: ChatStreamUsage;
      provenance: unknown;
      /** The recorded transitions a local model's prompt showed (`terrarium.neighbors`). */
      neighbors: PromptNeighbor[] | null;
    }
  | { type: 'done' };

function field(value: unknown, key: string): unknown {
  return typeof value === 'object' && value !== null ? Reflect.get(value, key) : undefined;
}

function count(value: unknown): number {
  return typeof value === 'number' ? value : 0;
}

/** Terrarium's `terrarium.neighbors` list; anything else is no list. */
function neighborsOf(value: unknown): PromptNeighbor[] | null {
  if (!Array.isArray(value)) return null;
  const neighbors: PromptNeighbor[] = [];
  for (const entry of value) {
    const action = Action.safeParse(field(entry, 'action'));
    const observation = field(entry, 'observation');
    if (!action.success || typeof observation !== 'string') return null;
    neighbors.push({ action: action.data, observation });
  }
  return neighbors;
}

/** Reads one event's data as the OpenAI streaming protocol writes it (Terrarium's `/v1` included). */
export function chatStreamEvents(data: string): ChatStreamEvent[] {
  if (data === '[DONE]') return [{ type: 'done' }];
  const chunk: unknown = JSON.parse(data);
  const error = field(chunk, 'error');
  if (error !== undefined) {
    const message = field(error, 'message');
    throw new Error(typeof message === 'string' ? message : 'the stream reported an error');
  }
  const events: ChatStreamEvent[] = [];
  const choices = field(chunk, 'choices');
  const choice: unknown = Array.isArray(choices) ? choices[0] : undefined;
  const delta = field(choice, 'delta');
  const reasoning = field(delta, 'reasoning_content');
  if (typeof reasoning === 'string' && reasoning !== '') {
    events.push({ type: 'reasoning', text: reasoning });
  }
  const content = field(delta, 'content');
  if (typeof content === 'string' && content !== '')
    events.push({ type: 'content', text: content });
  const finish = field(choice, 'finish_reason');
  if (typeof finish === 'string') events.push({ type: 'finish', reason: finish });
  const usage = field(chunk, 'usage');
  if (usage !== undefined && usage !== null) {
    events.push({
      type: 'usage',
      usage: {
        promptTokens: count(field(usage, 'prompt_tokens')),
        completionTokens: count(field(usage, 'completion_tokens')),
      },
      provenance: field(field(chunk, 'terrarium'), 'provenance') ?? null,
      neighbors: neighborsOf(field(field(chunk, 'terrarium'), 'neighbors')),
    });
  }
  return events;
}
