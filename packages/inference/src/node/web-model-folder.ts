import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { loadOnnxModelWeb, type LoadedWebModel } from '../web/load-model-web';
import { BUNDLED_MODEL_FOLDER, type LoadOptions } from './load-model-folder';
import { readJson, readOptionalJson } from './read-json';

/**
 * A model folder run with onnxruntime-web's wasm build in Node, one thread: what the browser runs,
 * without a browser, for comparing the two runtimes on the same files (tests, benchmarks). Its own
 * entry point (`@terrarium/inference/node/web`): it needs the web build's types, which the server's
 * packages do not compile with.
 */
export async function loadWebModelFolder(
  folder: string = BUNDLED_MODEL_FOLDER,
  options: LoadOptions = {},
): Promise<LoadedWebModel> {
  return loadOnnxModelWeb({
    config: await readJson(join(folder, 'config.json')),
    tokenizerJson: await readOptionalJson(join(folder, 'tokenizer.json')),
    tokenizerConfig: await readOptionalJson(join(folder, 'tokenizer_config.json')),
    model: await readFile(join(folder, 'onnx', options.file ?? 'model.onnx')),
    executionProvider: 'wasm',
    wasmThreads: 1,
  });
}
