import * as ort from 'onnxruntime-web';
import { createDecoder, type Decoder, type TensorFactory } from '../decoder';
import { parseModelConfig, type ModelConfig } from '../model-config';

export type WebExecutionProvider = 'webgpu' | 'wasm';

export interface LoadedWebModel {
  config: ModelConfig;
  decoder: Decoder;
  session: ort.InferenceSession;
  /** The provider the session was created with (WebGPU when an adapter exists, wasm otherwise). */
  executionProvider: WebExecutionProvider;
}

export interface WebLoadOptions {
  /** Parsed `config.json`. */
  config: unknown;
  /** The bytes of `onnx/model.onnx` (fetched, or read from a file the user picked). */
  model: Uint8Array;
  /** Default: `webgpu` when `navigator.gpu` gives an adapter, else `wasm`. */
  executionProvider?: WebExecutionProvider;
  /** wasm threads; must be decided before the first session (multi-threading needs COOP/COEP). */
  wasmThreads?: number;
}

export const webTensor: TensorFactory = (
  type: 'int64' | 'float32',
  data: BigInt64Array | Float32Array,
  dims: number[],
) => new ort.Tensor(type, data, dims);

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

/** Loads a model with onnxruntime-web (browser, or Node for tests and benchmarks). */
export async function loadOnnxModelWeb(options: WebLoadOptions): Promise<LoadedWebModel> {
  const config = parseModelConfig(options.config);
  if (options.wasmThreads !== undefined) ort.env.wasm.numThreads = options.wasmThreads;
  const executionProvider =
    options.executionProvider ?? ((await hasWebGpuAdapter()) ? 'webgpu' : 'wasm');
  const session = await ort.InferenceSession.create(options.model, {
    executionProviders: [executionProvider],
  });
  return {
    config,
    session,
    executionProvider,
    decoder: createDecoder({ session, config, tensor: webTensor }),
  };
}
