import { join } from 'node:path';
import { InferenceSession, Tensor } from 'onnxruntime-node';
import { createDecoder, type Decoder, type TensorFactory } from '../decoder';
import { modelRoleOf, parseModelConfig, type ModelConfig, type ModelRole } from '../model-config';
import { declaresByteTokenizer, modelTokenizer } from '../model-tokenizer';
import { promptFormatOf } from '../prompt';
import type { TextTokenizer } from '../tokenizer';
import { readJson, readOptionalJson } from './read-json';

/** The bundled model (models/terrarium-wm-tiny at the repository root). */
export const BUNDLED_MODEL_FOLDER = new URL('../../../../models/terrarium-wm-tiny', import.meta.url)
  .pathname;

export interface LoadedModelFolder {
  config: ModelConfig;
  /** A world model (the default) or a policy (`terrarium.role` in config.json). */
  role: ModelRole;
  decoder: Decoder;
  tokenizer: TextTokenizer;
  session: InferenceSession;
}

export interface LoadOptions {
  /** File under `onnx/` (default `model.onnx`; `model_quantized.onnx` for the int8 one). */
  file?: string;
  /**
   * onnxruntime's intra-op threads (default: its own choice, one per core). The browser's page
   * runs one wasm thread; a benchmark sets 1 here to compare like with like.
   */
  intraOpThreads?: number;
}

export const nodeTensor: TensorFactory = (
  type: 'int64' | 'float32',
  data: BigInt64Array | Float32Array,
  dims: number[],
) => new Tensor(type, data, dims);

/** The folder's tokenizer: the byte one when config.json declares it, else its tokenizer.json. */
async function readFolderTokenizer(folder: string, configJson: unknown): Promise<TextTokenizer> {
  if (declaresByteTokenizer(configJson)) return modelTokenizer({ config: configJson });
  const tokenizerJson = await readOptionalJson(join(folder, 'tokenizer.json'));
  if (tokenizerJson === undefined) {
    throw new Error(
      `${join(folder, 'tokenizer.json')} does not exist, and config.json does not declare "terrarium": {"tokenizer": "bytes"}`,
    );
  }
  const tokenizerConfig = await readOptionalJson(join(folder, 'tokenizer_config.json'));
  return modelTokenizer({ config: configJson, tokenizerJson, tokenizerConfig });
}

/**
 * Loads a transformers.js / Optimum style folder (config.json, tokenizer.json, onnx/model.onnx)
 * with onnxruntime-node.
 */
export async function loadOnnxModelFolder(
  folder: string = BUNDLED_MODEL_FOLDER,
  options: LoadOptions = {},
): Promise<LoadedModelFolder> {
  const configJson = await readJson(join(folder, 'config.json'));
  const config = parseModelConfig(configJson);
  // A folder trained on an older prompt format is refused here, with the reason.
  promptFormatOf(configJson);
  const tokenizer = await readFolderTokenizer(folder, configJson);
  const session = await InferenceSession.create(
    join(folder, 'onnx', options.file ?? 'model.onnx'),
    {
      executionProviders: ['cpu'],
      ...(options.intraOpThreads === undefined
        ? {}
        : { intraOpNumThreads: options.intraOpThreads }),
    },
  );
  return {
    config,
    role: modelRoleOf(configJson),
    session,
    tokenizer,
    decoder: createDecoder({ session, config, tensor: nodeTensor, tokenizer }),
  };
}
