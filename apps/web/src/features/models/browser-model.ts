import {
  createOnnxWorldModel,
  declaresByteTokenizer,
  renderPrompt,
  type GenerateResult,
} from '@terrarium/inference';
import {
  loadOnnxModelWeb,
  wasmThreadCount,
  type ExecutionProviderChoice,
  type LoadedWebModel,
  type WebExecutionProvider,
} from '@terrarium/inference/web';
import type { Action, Domain } from '@terrarium/schema';
import type { Transition, WorldModel } from '@terrarium/worlds';
import { tokenizerProblem, type ModelFiles } from './pick-model-files';

/** The model that ships with Terrarium, as the server serves it (apps/server/src/model-files.ts). */
export const BUNDLED_MODEL_NAME = 'terrarium-wm-tiny';

/** `/models/<folder name>/`: where the server serves a listed model folder's files. */
export function modelBaseUrl(folderName: string): string {
  return `/models/${encodeURIComponent(folderName)}/`;
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
  loaded: LoadedWebModel;
  wasmThreads: number;
}

async function fetchOk(url: string): Promise<Response> {
  const response = await fetch(url);
  if (!response.ok) throw new Error(`GET ${url}: ${response.status} ${response.statusText}`);
  return response;
}

interface SourceFiles {
  config: unknown;
  model: Uint8Array;
  /** Parsed tokenizer.json; undefined when there is none. */
  tokenizerJson: unknown;
  tokenizerConfig: unknown;
}

/** Parsed JSON of a served file, or undefined when the server has none (404). */
async function fetchOptionalJson(url: string): Promise<unknown> {
  const response = await fetch(url);
  if (response.status === 404) return undefined;
  if (!response.ok) throw new Error(`GET ${url}: ${response.status} ${response.statusText}`);
  return response.json();
}

async function readOptionalJson(file: File | null | undefined): Promise<unknown> {
  return file === null || file === undefined ? undefined : JSON.parse(await file.text());
}

async function readSource(source: ModelSource): Promise<SourceFiles> {
  if (source.kind === 'served') {
    const base = modelBaseUrl(source.name);
    const [config, model] = await Promise.all([
      fetchOk(`${base}config.json`).then((response): Promise<unknown> => response.json()),
      fetchOk(`${base}onnx/model.onnx`).then((response) => response.arrayBuffer()),
    ]);
    // A byte-level Terrarium model reads no tokenizer file.
    const [tokenizerJson, tokenizerConfig] = declaresByteTokenizer(config)
      ? [undefined, undefined]
      : await Promise.all([
          fetchOptionalJson(`${base}tokenizer.json`),
          fetchOptionalJson(`${base}tokenizer_config.json`),
        ]);
    return { config, model: new Uint8Array(model), tokenizerJson, tokenizerConfig };
  }
  const config: unknown = JSON.parse(await source.files.config.text());
  const bytes = declaresByteTokenizer(config);
  return {
    config,
    model: new Uint8Array(await source.files.model.arrayBuffer()),
    tokenizerJson: bytes ? undefined : await readOptionalJson(source.files.tokenizer),
    tokenizerConfig: bytes ? undefined : await readOptionalJson(source.files.tokenizerConfig),
  };
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

const servedModels = new Map<string, Promise<BrowserModel>>();

/**
 * Loads a model with onnxruntime-web. A served folder is loaded once per provider choice and kept
 * (the bundled one is 3.8 MB); picked files are loaded afresh each time they are picked.
 */
export function loadBrowserModel(
  source: ModelSource,
  choice: ExecutionProviderChoice,
): Promise<BrowserModel> {
  const key = source.kind === 'served' ? `${source.name}|${choice}` : null;
  const cached = key === null ? undefined : servedModels.get(key);
  if (cached !== undefined) return cached;
  const loading = (async (): Promise<BrowserModel> => {
    const { config, model, tokenizerJson, tokenizerConfig } = await readSource(source);
    const problem = tokenizerProblem(config, tokenizerJson !== undefined);
    if (problem !== null) throw new Error(problem);
    const wasmThreads = threadsForThisPage();
    const loaded = await loadOnnxModelWeb({
      config,
      model,
      tokenizerJson,
      tokenizerConfig,
      executionProvider: choice,
      wasmThreads,
    });
    return { name: source.kind === 'served' ? source.name : source.label, loaded, wasmThreads };
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
  wasmThreads: number;
  prompt: string;
  tokens: number[];
  text: string;
  finishReason: GenerateResult['finishReason'];
  promptTokens: number;
  /** Generated tokens over the decode's wall time (prompt included), as a user experiences it. */
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
  maxTokens: number;
  signal?: AbortSignal;
  onToken?: (text: string) => void;
}

/**
 * One greedy prediction in the browser with packages/inference's decoder and prompt format (the
 * code the server runs), timed.
 */
export async function decodeInBrowser(
  model: BrowserModel,
  request: DecodeRequest,
): Promise<BrowserDecode> {
  const prompt = renderPrompt(request.domain, [...request.history], request.action);
  const started = performance.now();
  const result = await model.loaded.decoder.generate(prompt, {
    maxTokens: request.maxTokens,
    temperature: 0,
    ...(request.signal === undefined ? {} : { signal: request.signal }),
    ...(request.onToken === undefined ? {} : { onToken: request.onToken }),
  });
  const milliseconds = performance.now() - started;
  const decode: BrowserDecode = {
    model: model.name,
    executionProvider: model.loaded.executionProvider,
    wasmThreads: model.wasmThreads,
    prompt,
    tokens: result.tokens,
    text: result.text,
    finishReason: result.finishReason,
    promptTokens: result.promptTokens,
    tokensPerSecond: milliseconds > 0 ? (result.tokens.length * 1000) / milliseconds : 0,
    milliseconds,
  };
  window.terrariumLastDecode = decode;
  return decode;
}

/** The loaded model as a simulator (the server's ONNX backend, run here). */
export function browserWorldModel(model: BrowserModel): WorldModel {
  return createOnnxWorldModel({
    decoder: model.loaded.decoder,
    id: `onnx:${model.name}`,
    runtime: `onnxruntime-web/${model.loaded.executionProvider}`,
  });
}
