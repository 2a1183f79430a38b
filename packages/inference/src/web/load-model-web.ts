import * as ort from 'onnxruntime-web';
import {
  createDecoder,
  type Decoder,
  type InferenceSessionLike,
  type TensorFactory,
} from '../decoder';
import { parseModelConfig, type ModelConfig } from '../model-config';
import { modelTokenizer } from '../model-tokenizer';
import { promptFormatOf } from '../prompt';
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
  /**
   * Why WebGPU was asked for (`auto` or `webgpu`) and wasm ran instead; null when the run got what
   * was asked. The page says it in these words.
   */
  fallbackReason: string | null;
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
  /**
   * Awaited before every model run of the decoder. A Web Worker yields to its event loop there, so
   * that a cancel message posted while it decodes is read between two tokens (the wasm run itself
   * resolves through microtasks only, which would starve the worker's message queue).
   */
  beforeRun?: () => Promise<void>;
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

/** Whether this page can run the WebGPU provider, and if not, why not (in the user's words). */
export type WebGpuAvailability = { available: true } | { available: false; reason: string };

export async function webGpuAvailability(): Promise<WebGpuAvailability> {
  const gpu: unknown = Reflect.get(globalThis.navigator ?? {}, 'gpu');
  if (typeof gpu !== 'object' || gpu === null) {
    // The usual cause on a LAN: browsers hide WebGPU from pages served over plain HTTP.
    if (Reflect.get(globalThis, 'isSecureContext') === false) {
      return {
        available: false,
        reason:
          'this page is not a secure context (plain HTTP on an address other than localhost); browsers offer WebGPU only over HTTPS or on localhost',
      };
    }
    return { available: false, reason: 'this browser exposes no WebGPU API (navigator.gpu)' };
  }
  const requestAdapter: unknown = Reflect.get(gpu, 'requestAdapter');
  if (typeof requestAdapter !== 'function') {
    return { available: false, reason: 'this browser exposes no WebGPU API (navigator.gpu)' };
  }
  try {
    const adapter: unknown = await Reflect.apply(requestAdapter, gpu, []);
    return adapter !== null && adapter !== undefined
      ? { available: true }
      : { available: false, reason: 'the browser offered no WebGPU adapter (no usable GPU)' };
  } catch (error) {
    return {
      available: false,
      reason: `asking the browser for a WebGPU adapter failed: ${messageOf(error)}`,
    };
  }
}

/** Whether this page can run the WebGPU provider: the API exists and yields an adapter. */
export async function hasWebGpuAdapter(): Promise<boolean> {
  return (await webGpuAvailability()).available;
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
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
  // Before the session: a folder of an older prompt format, or without a usable tokenizer, fails
  // fast, without loading the model.
  promptFormatOf(options.config);
  const tokenizer = modelTokenizer({
    config: options.config,
    tokenizerJson: options.tokenizerJson,
    tokenizerConfig: options.tokenizerConfig,
  });
  const choice = options.executionProvider ?? 'auto';
  const availability: WebGpuAvailability =
    choice === 'wasm' ? { available: false, reason: '' } : await webGpuAvailability();
  let executionProvider = chooseExecutionProvider(choice, availability.available);
  let fallbackReason = choice === 'wasm' || availability.available ? null : availability.reason;
  const beforeRun = options.beforeRun;
  const decoderOf = ({ runtime, session }: { runtime: OrtWeb; session: ort.InferenceSession }) => {
    const inner: InferenceSessionLike = session;
    return createDecoder({
      session:
        beforeRun === undefined
          ? session
          : {
              inputNames: session.inputNames,
              outputNames: session.outputNames,
              run: async (feeds, fetches) => {
                await beforeRun();
                return inner.run(feeds, fetches);
              },
            },
      config,
      tensor: tensorFactory(runtime),
      tokenizer,
    });
  };
  let created: { runtime: OrtWeb; session: ort.InferenceSession };
  try {
    created = await createSession(executionProvider, options);
  } catch (error) {
    if (executionProvider === 'wasm') throw error;
    // An adapter that cannot run the model (an old driver, a missing feature) still leaves wasm.
    fallbackReason = `the WebGPU session could not be created: ${messageOf(error)}`;
    executionProvider = 'wasm';
    created = await createSession('wasm', options);
  }
  let decoder = decoderOf(created);
  if (executionProvider === 'webgpu') {
    // A session can build and still fail at its first run: a kernel the WebGPU provider lacks for
    // this graph (the bundled fp32 file once failed so on its copy head's 1-D MatMul). One token
    // from the start token finds that at load, where falling back to wasm is still possible.
    const failure = await decoder
      .generate([config.bosTokenId ?? config.eosTokenIds[0] ?? 0], { maxTokens: 1 })
      .then(
        () => null,
        (error: unknown) => messageOf(error),
      );
    if (failure !== null) {
      await created.session.release();
      // The page goes on after the reason ("…: the model ran on wasm"): no final period here.
      fallbackReason = `WebGPU could not run this model (${failure.replace(/\.+$/, '')})`;
      executionProvider = 'wasm';
      created = await createSession('wasm', options);
      decoder = decoderOf(created);
    }
  }
  return {
    config,
    session: created.session,
    executionProvider,
    fallbackReason,
    tokenizer,
    decoder,
  };
}
