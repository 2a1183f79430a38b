import { Action, Domain, Observation } from '@terrarium/schema';
import { z } from 'zod';
import { FINISH_REASONS } from '../decoder';
import { earlierTransition, type PromptInput } from '../prompt';

/**
 * The messages between a page and its decoding Web Worker (decode-service.ts runs in the worker,
 * decode-client.ts on the page). Both ends parse what they receive: a message is `unknown` until
 * it has passed these schemas.
 */

/** `int8`: `onnx/model_quantized.onnx` (the transformers.js name), the browser's default; `fp32`: `onnx/model.onnx`. */
export const ModelVariant = z.enum(['int8', 'fp32']);
export type ModelVariant = z.infer<typeof ModelVariant>;

export const MODEL_FILE_OF_VARIANT: Readonly<Record<ModelVariant, string>> = {
  int8: 'onnx/model_quantized.onnx',
  fp32: 'onnx/model.onnx',
};

const ProviderChoice = z.enum(['auto', 'webgpu', 'wasm']);
const Provider = z.enum(['webgpu', 'wasm']);

/** A folder the server serves (`base` ends with `/`), or files the user picked (Blobs clone into a worker). */
export const ModelSourceMessage = z.discriminatedUnion('kind', [
  z.object({
    kind: z.literal('url'),
    base: z.string().min(1),
    /** Sent with each file's request: the page's session proof (a worker has no localStorage). */
    headers: z.record(z.string(), z.string()).optional(),
  }),
  z.object({
    kind: z.literal('blobs'),
    label: z.string(),
    config: z.instanceof(Blob),
    model: z.instanceof(Blob),
    tokenizer: z.instanceof(Blob).nullable(),
    tokenizerConfig: z.instanceof(Blob).nullable(),
  }),
]);
export type ModelSourceMessage = z.infer<typeof ModelSourceMessage>;

export const LoadRequest = z.object({
  type: z.literal('load'),
  id: z.number().int(),
  source: ModelSourceMessage,
  variant: ModelVariant,
  executionProvider: ProviderChoice,
  wasmThreads: z.number().int().positive(),
});
export type LoadRequest = z.infer<typeof LoadRequest>;

/**
 * What the worker builds a prompt from (packages/inference `buildPrompt`, with the model's own
 * tokenizer). The page sends only the earlier transition the prompt shows (`earlierTransition`),
 * not a whole history.
 */
export const PromptInputMessage = z.object({
  domain: Domain,
  history: z.array(z.object({ action: Action, observation: Observation })).max(1),
  action: Action,
  neighbors: z.array(z.object({ action: Action, observation: z.string() })),
});
export type PromptInputMessage = z.infer<typeof PromptInputMessage>;

/** The part of a prompt input the worker needs: the history cut to the transition the prompt shows. */
export function promptInputMessage(input: PromptInput): PromptInputMessage {
  const earlier = earlierTransition(input.history, input.action);
  return {
    domain: input.domain,
    history: earlier === undefined ? [] : [earlier],
    action: input.action,
    neighbors: [...input.neighbors],
  };
}

export const GenerateRequest = z.object({
  type: z.literal('generate'),
  id: z.number().int(),
  /** The handle a `loaded` reply gave. */
  model: z.string(),
  /** Text as the user wrote or edited it, or what to build the model's own prompt from. */
  prompt: z.union([z.string().min(1), PromptInputMessage]),
  maxTokens: z.number().int().positive(),
  temperature: z.number().min(0).optional(),
  topK: z.number().int().min(0).optional(),
  seed: z.number().int().optional(),
  stop: z.array(z.string()).optional(),
  /** For a text prompt; a built prompt's grammar follows from its neighbors (`observationGrammar`). */
  grammar: z.enum(['json', 'json-if-opened']).optional(),
  /** The decoder's `stopCycles` (default true). */
  stopCycles: z.boolean().optional(),
});
export type GenerateRequest = z.infer<typeof GenerateRequest>;

export const WorkerRequest = z.discriminatedUnion('type', [
  LoadRequest,
  GenerateRequest,
  z.object({ type: z.literal('cancel'), id: z.number().int() }),
]);
export type WorkerRequest = z.infer<typeof WorkerRequest>;

export const LoadedReply = z.object({
  type: z.literal('loaded'),
  id: z.number().int(),
  model: z.string(),
  /** The folder's parsed config.json (the page reads its prompt format from it). */
  config: z.unknown(),
  executionProvider: Provider,
  /** Why WebGPU was asked for and wasm ran; null when the run got what was asked. */
  fallbackReason: z.string().nullable(),
  variant: ModelVariant,
  /** The file that was loaded, e.g. `onnx/model_quantized.onnx`. */
  modelFile: z.string(),
  /** Why the variant differs from the one asked for (a folder without an int8 file); else null. */
  variantNote: z.string().nullable(),
  modelBytes: z.number().int().nonnegative(),
  wasmThreads: z.number().int().positive(),
  milliseconds: z.number().nonnegative(),
});
export type LoadedReply = z.infer<typeof LoadedReply>;

export const GeneratedReply = z.object({
  type: z.literal('generated'),
  id: z.number().int(),
  /** The prompt that was decoded, as text (markers written out). */
  prompt: z.string(),
  text: z.string(),
  tokens: z.array(z.number().int()),
  /** What the grammar appended to an output the budget cut ('' otherwise). */
  closing: z.string(),
  /** The reference that ended an output cut back at a cycle ('' otherwise; see the decoder). */
  referenceTail: z.string(),
  /** The grammar the output was held to, if any. */
  grammar: z.enum(['json']).nullable(),
  promptTokens: z.number().int().nonnegative(),
  finishReason: z.enum(FINISH_REASONS),
  /** Wall time of the decode inside the worker, prompt prefill included. */
  milliseconds: z.number().nonnegative(),
});
export type GeneratedReply = z.infer<typeof GeneratedReply>;

export const WorkerReply = z.discriminatedUnion('type', [
  LoadedReply,
  GeneratedReply,
  z.object({ type: z.literal('token'), id: z.number().int(), text: z.string() }),
  z.object({
    type: z.literal('failed'),
    id: z.number().int(),
    message: z.string(),
    aborted: z.boolean(),
  }),
]);
export type WorkerReply = z.infer<typeof WorkerReply>;

/**
 * One end of a message channel: a `Worker` seen from the page, the worker's global scope seen from
 * inside, or a `MessagePort` (tests). `endpointOf` adapts any of them.
 */
export interface MessageEndpoint {
  send(message: unknown): void;
  onMessage(listener: (data: unknown) => void): void;
  /** The other end died (a worker whose script failed): every request still waiting fails. */
  onFailure?(listener: (message: string) => void): void;
}

/** What `endpointOf` needs: the shape shared by `Worker`, `DedicatedWorkerGlobalScope` and `MessagePort`. */
export interface MessageTargetLike {
  postMessage(message: unknown): void;
  addEventListener(type: 'message', listener: (event: MessageEvent) => void): void;
}

export function endpointOf(target: MessageTargetLike): MessageEndpoint {
  return {
    // oxlint-disable-next-line unicorn/require-post-message-target-origin -- a Worker, its scope or a MessagePort: no target origin
    send: (message) => target.postMessage(message),
    onMessage: (listener) => target.addEventListener('message', (event) => listener(event.data)),
  };
}

/** A page's endpoint to a `Worker`: its `error` event (the script failed to load or threw) is a failure. */
export function endpointOfWorker(worker: Worker): MessageEndpoint {
  return {
    ...endpointOf(worker),
    onFailure: (listener) =>
      worker.addEventListener('error', (event) =>
        listener(event.message === '' ? 'the worker script could not run' : event.message),
      ),
  };
}
