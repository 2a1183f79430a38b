import type { GenerateResult } from '../decoder';
import {
  WorkerReply,
  type GeneratedReply,
  type LoadedReply,
  type LoadRequest,
  type MessageEndpoint,
  type PromptInputMessage,
} from './decode-protocol';

export interface RemoteGenerateOptions {
  maxTokens: number;
  temperature?: number;
  topK?: number;
  seed?: number;
  stop?: readonly string[];
  /** The decoder's `stopCycles` (default true). */
  stopCycles?: boolean;
  signal?: AbortSignal;
  /** Each piece of text as the worker streams it. */
  onToken?: (text: string) => void;
}

export interface RemoteGenerateResult extends Omit<GenerateResult, 'heldToJson'> {
  /** The prompt that was decoded, as text (markers written out). */
  prompt: string;
  /** The grammar the output was held to, if any. */
  grammar: 'json' | null;
  /** The decode's wall time inside the worker (prompt prefill included). */
  milliseconds: number;
}

/**
 * A model loaded in the worker: `generate` posts the prompt and resolves with the worker's result.
 * A prompt is text (as a user wrote it) or the input the worker builds the model's own prompt from
 * with the model's tokenizer (`buildPrompt`).
 */
export interface RemoteModel {
  readonly loaded: LoadedReply;
  generate(
    prompt: string | PromptInputMessage,
    options: RemoteGenerateOptions,
  ): Promise<RemoteGenerateResult>;
}

export interface DecodeClient {
  load(request: Omit<LoadRequest, 'type' | 'id'>): Promise<RemoteModel>;
}

type Answer = LoadedReply | GeneratedReply;

interface Pending {
  onToken?: (text: string) => void;
  resolve(reply: Answer): void;
  reject(error: Error): void;
}

/** The page side of the decoding worker (see decode-service.ts). */
export function createDecodeClient(endpoint: MessageEndpoint): DecodeClient {
  const pending = new Map<number, Pending>();
  let nextId = 1;

  endpoint.onMessage((data) => {
    const parsed = WorkerReply.safeParse(data);
    if (!parsed.success) return;
    const reply = parsed.data;
    const waiting = pending.get(reply.id);
    if (waiting === undefined) return;
    if (reply.type === 'token') {
      waiting.onToken?.(reply.text);
      return;
    }
    pending.delete(reply.id);
    if (reply.type === 'failed') {
      const error = new Error(reply.message);
      if (reply.aborted) error.name = 'AbortError';
      waiting.reject(error);
    } else {
      waiting.resolve(reply);
    }
  });

  endpoint.onFailure?.((message) => {
    for (const waiting of pending.values()) {
      waiting.reject(new Error(`the decoding worker failed: ${message}`));
    }
    pending.clear();
  });

  function call(
    message: { type: 'load' | 'generate' } & Record<string, unknown>,
    onToken?: (text: string) => void,
  ): { id: number; reply: Promise<Answer> } {
    const id = nextId++;
    const reply = new Promise<Answer>((resolve, reject) => {
      pending.set(id, { resolve, reject, ...(onToken === undefined ? {} : { onToken }) });
    });
    endpoint.send({ ...message, id });
    return { id, reply };
  }

  function remoteModel(loaded: LoadedReply): RemoteModel {
    return {
      loaded,
      async generate(prompt, options) {
        options.signal?.throwIfAborted();
        const { id, reply } = call(
          {
            type: 'generate',
            model: loaded.model,
            prompt,
            maxTokens: options.maxTokens,
            ...(options.temperature === undefined ? {} : { temperature: options.temperature }),
            ...(options.topK === undefined ? {} : { topK: options.topK }),
            ...(options.seed === undefined ? {} : { seed: options.seed }),
            ...(options.stop === undefined ? {} : { stop: [...options.stop] }),
            ...(options.stopCycles === undefined ? {} : { stopCycles: options.stopCycles }),
          },
          options.onToken,
        );
        const cancel = () => endpoint.send({ type: 'cancel', id });
        options.signal?.addEventListener('abort', cancel, { once: true });
        try {
          const result = await reply;
          if (result.type !== 'generated')
            throw new Error('the worker answered a decode with a load');
          return {
            prompt: result.prompt,
            text: result.text,
            closing: result.closing,
            referenceTail: result.referenceTail,
            grammar: result.grammar,
            tokens: result.tokens,
            promptTokens: result.promptTokens,
            finishReason: result.finishReason,
            milliseconds: result.milliseconds,
          };
        } catch (error) {
          // The caller's abort reason, as a local decode would throw it.
          options.signal?.throwIfAborted();
          throw error;
        } finally {
          options.signal?.removeEventListener('abort', cancel);
        }
      },
    };
  }

  return {
    async load(request) {
      const { reply } = call({ ...request, type: 'load' });
      const loaded = await reply;
      if (loaded.type !== 'loaded') throw new Error('the worker answered a load with a decode');
      return remoteModel(loaded);
    },
  };
}
