import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { InferenceSession, Tensor } from 'onnxruntime-node';
import { createDecoder, type Decoder, type TensorFactory } from '../decoder';
import { parseModelConfig, type ModelConfig } from '../model-config';

/** The bundled model (models/terrarium-wm-tiny at the repository root). */
export const BUNDLED_MODEL_FOLDER = new URL('../../../../models/terrarium-wm-tiny', import.meta.url)
  .pathname;

export interface LoadedModelFolder {
  config: ModelConfig;
  decoder: Decoder;
  session: InferenceSession;
}

export interface LoadOptions {
  /** File under `onnx/` (default `model.onnx`; `model_quantized.onnx` for the int8 one). */
  file?: string;
}

export const nodeTensor: TensorFactory = (
  type: 'int64' | 'float32',
  data: BigInt64Array | Float32Array,
  dims: number[],
) => new Tensor(type, data, dims);

/** Loads a transformers.js / Optimum style folder (config.json, onnx/model.onnx) with onnxruntime-node. */
export async function loadOnnxModelFolder(
  folder: string = BUNDLED_MODEL_FOLDER,
  options: LoadOptions = {},
): Promise<LoadedModelFolder> {
  const config = parseModelConfig(JSON.parse(await readFile(join(folder, 'config.json'), 'utf8')));
  const session = await InferenceSession.create(
    join(folder, 'onnx', options.file ?? 'model.onnx'),
    {
      executionProviders: ['cpu'],
    },
  );
  return { config, session, decoder: createDecoder({ session, config, tensor: nodeTensor }) };
}
