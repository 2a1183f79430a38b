import * as ort from 'onnxruntime-web';
import { createDecoder, type Decoder, type TensorFactory } from '../decoder';
import { parseModelConfig, type ModelConfig } from '../model-config';
import { modelTokenizer } from '../model-tokenizer';
import type { TextTokenizer } from '../tokenizer';
import { chooseExecutionProvider, type ExecutionProviderChoice } from './execution-provider';

export type WebExecutionProvider = 'webgpu' | 'wasm';

/** One onnxruntime-web build (`onnxruntime-web`, `/wasm` and `/webgpu` share these types). */
type OrtWeb = typeof ort;

export interface LoadedWebModel {
  config: ModelConfig;
  decoder: Decoder;
  tokenizer: TextTokenizer;
  session: ort.InferenceSession;
  /** The provider the session was created with (WebGPU when an adapter exists, wasm otherwise). */
  executionProvider: WebExecutionProvider;
}

export interface WebLoadOptions {
  /** Parsed `config.json`. */
  config: unknown;
  /**
   * Parsed `tokenizer.json`: required unless config.json declares `"terrarium": {"tokenizer":
   * "bytes"}` (then it is not read).
   */
  tokenizerJson?: unknown;
  /** Parsed `tokenizer_config.json`, when the folder has one. */
  tokenizerConfig?: unknown;
  /** The bytes of `onnx/model.onnx` (fetched, or read from a file the user picked). */
  model: Uint8Array;
  /**
   * Default `auto`: `webgpu` when `navigator.gpu` gives an adapter, else `wasm`. When a WebGPU
   * session cannot be created, wasm is used instead (`executionProvider` in the result says which).
   */
  executionProvider?: ExecutionProviderChoice;
  /** wasm threads; must be decided before the first session (multi-threading needs COOP/COEP). */
  wasmThreads?: number;
  /**
   * Where onnxruntime-web's `.wasm`/`.mjs` files are served. Unset, the bundler's copy is used
   * (Vite emits the file the import refers to as an asset of the app itself: no CDN).
   */
  wasmPaths?: string;
}

/**
 * Tensors of the default `onnxruntime-web` module: in Node (tests, benchmarks) the one every
 * session of `loadOnnxModelWeb` uses. A loaded model's own decoder already has the right factory.
 */
export const webTensor: TensorFactory = (
  type: 'int64' | 'float32',
  data: BigInt64Array | Float32Array,
  dims: number[],
) => new ort.Tensor(type, data, dims);

function tensorFactory(runtime: OrtWeb): TensorFactory {
  return (type: 'int64' | 'float32', data: BigInt64Array | Float32Array, dims: number[]) =>
    new runtime.Tensor(type, data, dims);
}

function isNode(): boolean {
  const processObject: unknown = Reflect.get(globalThis, 'process');
  if (typeof processObject !== 'object' || processObject === null) return false;
  const versions: unknown = Reflect.get(processObject, 'versions');
  return typeof versions === 'object' && versions !== null && 'node' in versions;
}

/**
 * The build to run a provider with. WebGPU runs on the default build (JSEP, checked on the
 * SwiftShader adapter here). In a browser, wasm runs on the wasm-only build: on wasm the JSEP
 * build measured 2-3x slower per token in Chromium here. In Node, `onnxruntime-web` resolves to
 * its Node build, which runs wasm.
 */
async function runtimeFor(provider: WebExecutionProvider): Promise<OrtWeb> {
  if (provider === 'webgpu' || isNode()) return ort;
  return import('onnxruntime-web/wasm');
}

/** Whether this page can run the WebGPU provider: the API exists and yields an adapter. */
export async function hasWebGpuAdapter(): Promise<boolean> {
  const gpu: unknown = Reflect.get(globalThis.navigator ?? {}, 'gpu');
  if (typeof gpu !== 'object' || gpu === null) return false;
  const requestAdapter: unknown = Reflect.get(gpu, 'requestAdapter');
  if (typeof requestAdapter !== 'function') return false;
  try {
    const adapter: unknown = await Reflect.apply(requestAdapter, gpu, []);
    return adapter !== null && adapter !== undefined;
  } catch {
    return false;
  }
}

async function createSession(
  provider: WebExecutionProvider,
  options: WebLoadOptions,
): Promise<{ runtime: OrtWeb; session: ort.InferenceSession }> {
  const runtime = await runtimeFor(provider);
  // Each build has its own env; these are read when its first session starts.
  if (options.wasmThreads !== undefined) runtime.env.wasm.numThreads = options.wasmThreads;
  if (options.wasmPaths !== undefined) runtime.env.wasm.wasmPaths = options.wasmPaths;
  const session = await runtime.InferenceSession.create(options.model, {
    executionProviders: [provider],
  });
  return { runtime, session };
}

/** Loads a model with onnxruntime-web (browser, or Node for tests and benchmarks). */
export async function loadOnnxModelWeb(options: WebLoadOptions): Promise<LoadedWebModel> {
  const config = parseModelConfig(options.config);
  // Before the session: a folder without a usable tokenizer fails fast, without loading the model.
  const tokenizer = modelTokenizer({
    config: options.config,
    tokenizerJson: options.tokenizerJson,
    tokenizerConfig: options.tokenizerConfig,
  });
  const choice = options.executionProvider ?? 'auto';
  let executionProvider = chooseExecutionProvider(
    choice,
    choice === 'wasm' ? false : await hasWebGpuAdapter(),
  );
  let created: { runtime: OrtWeb; session: ort.InferenceSession };
  try {
    created = await createSession(executionProvider, options);
  } catch (error) {
    if (executionProvider === 'wasm') throw error;
    // An adapter that cannot run the model (an old driver, a missing feature) still leaves wasm.
    console.warn('onnxruntime-web: WebGPU session failed, running on wasm instead:', error);
    executionProvider = 'wasm';
    created = await createSession('wasm', options);
  }
  const { runtime, session } = created;
  return {
    config,
    session,
    executionProvider,
    tokenizer,
    decoder: createDecoder({ session, config, tensor: tensorFactory(runtime), tokenizer }),
  };
}
