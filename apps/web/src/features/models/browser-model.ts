import {
  OBSERVATION_MAX_TOKENS,
  outputEndDetail,
  PROMPT_FORMAT_VERSION,
  PROMPT_NEIGHBORS,
  type GenerateResult,
  type PromptNeighbor,
} from '@terrarium/inference';
import {
  promptInputMessage,
  wasmThreadCount,
  type DecodeClient,
  type ExecutionProviderChoice,
  type ModelSourceMessage,
  type ModelVariant,
  type RemoteModel,
  type WebExecutionProvider,
} from '@terrarium/inference/web';
import { MODEL_URL_PREFIX, type Action, type Domain } from '@terrarium/schema';
import {
  answeredCallId,
  predictedKind,
  type Prediction,
  type Transition,
  type WorldModel,
} from '@terrarium/worlds';
import { sessionHeaders } from '../../app/session-proof';
import { decodeWorkerClient } from './decode-worker';
import { tokenizerProblem, type ModelFiles } from './pick-model-files';

/** The model that ships with Terrarium, as the server serves it (apps/server/src/model-files.ts). */
export const BUNDLED_MODEL_NAME = 'terrarium-wm-tiny';

/** `/models/<folder name>/`: where the server serves a listed model folder's files. */
export function modelBaseUrl(folderName: string): string {
  return `${MODEL_URL_PREFIX}${encodeURIComponent(folderName)}/`;
}

/** The folder name of an `onnx:PATH` spec (the server serves it under that name), or null. */
export function modelFolderOfSpec(spec: string): string | null {
  if (!spec.startsWith('onnx:')) return null;
  const name = spec
    .slice('onnx:'.length)
    .replace(/[\\/]+$/, '')
    .split(/[\\/]/)
    .at(-1);
  return name === undefined || name === '' ? null : name;
}

/** Where the model comes from: a folder the server serves, or files the user picked from disk. */
export type ModelSource =
  { kind: 'served'; name: string } | { kind: 'files'; label: string; files: ModelFiles<File> };

export interface BrowserModel {
  /** The folder name, shown in provenance. */
  name: string;
  /** The model as the decoding worker holds it. */
  remote: RemoteModel;
  executionProvider: WebExecutionProvider;
  /** Why WebGPU was asked for and wasm ran (shown on the page); null when it ran as asked. */
  fallbackReason: string | null;
  variant: ModelVariant;
  /** Why the variant is not the one asked for (no int8 file in the folder), or null. */
  variantNote: string | null;
  wasmThreads: number;
}

/** Thread count decided once per page: onnxruntime-web reads it at its first session only. */
let pageWasmThreads: number | null = null;

function threadsForThisPage(): number {
  pageWasmThreads ??= wasmThreadCount(
    globalThis.crossOriginIsolated === true,
    globalThis.navigator?.hardwareConcurrency ?? 1,
  );
  return pageWasmThreads;
}

/** What the worker is sent: a served folder's URL, or the picked files themselves (Blobs clone). */
async function sourceMessage(source: ModelSource): Promise<ModelSourceMessage> {
  if (source.kind === 'served') {
    return { kind: 'url', base: modelBaseUrl(source.name), headers: sessionHeaders() };
  }
  const { files } = source;
  // Checked here, before the worker loads anything: the picker names the missing file.
  const problem = tokenizerProblem(JSON.parse(await files.config.text()), files.tokenizer !== null);
  if (problem !== null) throw new Error(problem);
  return {
    kind: 'blobs',
    label: source.label,
    config: files.config,
    model: files.model,
    tokenizer: files.tokenizer,
    tokenizerConfig: files.tokenizerConfig ?? null,
  };
}

const servedModels = new Map<string, Promise<BrowserModel>>();

export interface LoadBrowserModelOptions {
  /** Default `int8` (`onnx/model_quantized.onnx`, fp32 when the folder has none). */
  variant?: ModelVariant;
  /** Default: the page's decoding worker. */
  client?: DecodeClient;
}

/**
 * Loads a model in the decoding worker. A served folder is loaded once per variant and provider
 * choice and kept; picked files are loaded afresh each time they are picked.
 */
export function loadBrowserModel(
  source: ModelSource,
  choice: ExecutionProviderChoice,
  options: LoadBrowserModelOptions = {},
): Promise<BrowserModel> {
  const variant = options.variant ?? 'int8';
  const key =
    source.kind === 'served' && options.client === undefined
      ? `${source.name}|${variant}|${choice}`
      : null;
  const cached = key === null ? undefined : servedModels.get(key);
  if (cached !== undefined) return cached;
  const loading = (async (): Promise<BrowserModel> => {
    const client = options.client ?? decodeWorkerClient();
    const wasmThreads = threadsForThisPage();
    const remote = await client.load({
      source: await sourceMessage(source),
      variant,
      executionProvider: choice,
      wasmThreads,
    });
    return {
      name: source.kind === 'served' ? source.name : source.label,
      remote,
      executionProvider: remote.loaded.executionProvider,
      fallbackReason: remote.loaded.fallbackReason,
      variant: remote.loaded.variant,
      variantNote: remote.loaded.variantNote,
      wasmThreads,
    };
  })();
  if (key !== null) {
    servedModels.set(key, loading);
    loading.catch(() => servedModels.delete(key));
  }
  return loading;
}

/** What the last browser decode did; e2e tests compare `tokens` with onnxruntime-node's. */
export interface BrowserDecode {
  model: string;
  executionProvider: WebExecutionProvider;
  fallbackReason: string | null;
  variant: ModelVariant;
  wasmThreads: number;
  /** The prompt the model read, as text (markers written out). */
  prompt: string;
  tokens: number[];
  text: string;
  /** Whether the output was held to JSON (the best neighbor is JSON, or the model opened JSON). */
  grammar: 'json' | null;
  /** What the grammar appended to an output the token budget cut ('' otherwise). */
  closing: string;
  /** The first neighbor's answer that ended an output cut back at a cycle ('' otherwise). */
  referenceTail: string;
  finishReason: GenerateResult['finishReason'];
  promptTokens: number;
  /**
   * Generated tokens over the decode's wall time in the worker (prompt prefill included); the
   * messages to and from the page are not counted.
   */
  tokensPerSecond: number;
  milliseconds: number;
}

declare global {
  interface Window {
    /** Set after each playground decode in the browser, for tests and benchmarks to read. */
    terrariumLastDecode?: BrowserDecode;
  }
}

export interface DecodeRequest {
  domain: Domain;
  history: readonly Transition[];
  action: Action;
  /** The recorded transitions the prompt shows (from the server). */
  neighbors: readonly PromptNeighbor[];
  /** The prompt text as the user edited it: decoded as is, instead of the rendered one. */
  prompt?: string;
  maxTokens: number;
  /** Default true: an output that runs in circles ends there (the decoder's `stopCycles`). */
  stopCycles?: boolean;
  signal?: AbortSignal;
  onToken?: (text: string) => void;
}

/**
 * One greedy prediction in the decoding worker with packages/inference's decoder and prompt
 * format (the code the server runs), timed there.
 */
export async function decodeInBrowser(
  model: BrowserModel,
  request: DecodeRequest,
): Promise<BrowserDecode> {
  const result = await model.remote.generate(request.prompt ?? promptInputMessage(request), {
    maxTokens: request.maxTokens,
    temperature: 0,
    ...(request.stopCycles === undefined ? {} : { stopCycles: request.stopCycles }),
    ...(request.signal === undefined ? {} : { signal: request.signal }),
    ...(request.onToken === undefined ? {} : { onToken: request.onToken }),
  });
  const decode: BrowserDecode = {
    model: model.name,
    executionProvider: model.executionProvider,
    fallbackReason: model.fallbackReason,
    variant: model.variant,
    wasmThreads: model.wasmThreads,
    prompt: result.prompt,
    tokens: result.tokens,
    text: result.text,
    grammar: result.grammar,
    closing: result.closing,
    referenceTail: result.referenceTail,
    finishReason: result.finishReason,
    promptTokens: result.promptTokens,
    tokensPerSecond:
      result.milliseconds > 0 ? (result.tokens.length * 1000) / result.milliseconds : 0,
    milliseconds: result.milliseconds,
  };
  if (typeof window !== 'undefined') window.terrariumLastDecode = decode;
  return decode;
}

/**
 * The loaded model as a simulator: the server's ONNX backend (createOnnxWorldModel) run in the
 * decoding worker. It is rebuilt here rather than reused because the worker's model has only
 * `generate` and the prompt needs the server's neighbors, fetched before each prediction; the
 * worker builds the prompt with packages/inference's `buildPrompt`, as the server does.
 */
export function browserWorldModel(
  model: BrowserModel,
  neighbors: () => Promise<readonly PromptNeighbor[]> = () => Promise.resolve([]),
  now: () => number = () => performance.now(),
): WorldModel {
  return {
    id: `onnx:${model.name}`,
    async predict(context, history, action, options = {}): Promise<Prediction> {
      const started = now();
      const shown = await neighbors();
      const prompt = promptInputMessage({
        domain: context.domain,
        history,
        action,
        neighbors: shown,
      });
      const result = await model.remote.generate(prompt, {
        maxTokens: options.maxTokens ?? OBSERVATION_MAX_TOKENS,
        temperature: options.temperature ?? 0,
        seed: options.seed ?? 0,
        ...(options.stop === undefined ? {} : { stop: options.stop }),
        ...(options.signal === undefined ? {} : { signal: options.signal }),
        ...(options.onToken === undefined ? {} : { onToken: options.onToken }),
      });
      return {
        observation: {
          kind: predictedKind(result.text, context.domain),
          content: result.text,
          callId: answeredCallId(action),
        },
        usage: { inputTokens: result.promptTokens, outputTokens: result.tokens.length },
        latencyMs: now() - started,
        provenance: {
          backend: 'onnx',
          cache: null,
          model: `onnx:${model.name}`,
          detail: {
            finishReason: result.finishReason,
            promptFormat: PROMPT_FORMAT_VERSION,
            neighbors: Math.min(shown.length, PROMPT_NEIGHBORS),
            grammar: result.grammar,
            ...outputEndDetail(result),
            runtime: `onnxruntime-web/${model.executionProvider}/${model.variant}`,
          },
        },
      };
    },
  };
}
