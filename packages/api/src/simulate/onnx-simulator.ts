import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { WorldModel } from '@terrarium/worlds';
import { LruCache } from './lru';
import { SimulatorError } from './simulator-error';

/**
 * The model that ships with Terrarium (models/terrarium-wm-tiny at the repository root; the same
 * folder as packages/inference's BUNDLED_MODEL_FOLDER, computed here so that listing simulators
 * does not load onnxruntime).
 */
export const BUNDLED_ONNX_FOLDER = fileURLToPath(
  new URL('../../../../models/terrarium-wm-tiny', import.meta.url),
);

/** `onnx:PATH` of the bundled model as the CLI and the server take it (relative to the working folder). */
export function bundledOnnxSpec(cwd: string = process.cwd()): string | null {
  if (!existsSync(path.join(BUNDLED_ONNX_FOLDER, 'config.json'))) return null;
  const relative = path.relative(cwd, BUNDLED_ONNX_FOLDER);
  return `onnx:${relative.startsWith('..') ? BUNDLED_ONNX_FOLDER : relative}`;
}

// A loaded model holds an onnxruntime session (a few MB for the tiny one): keep a couple.
const loaded = new LruCache<Promise<WorldModel>>(2);

/**
 * A local ONNX model folder (config.json, onnx/model.onnx) run with onnxruntime-node, loaded once
 * per folder. onnxruntime is imported only when a model is first asked for.
 */
export function onnxSimulator(folder: string, field = 'sim'): Promise<WorldModel> {
  const absolute = path.resolve(folder);
  if (!existsSync(path.join(absolute, 'config.json'))) {
    return Promise.reject(
      new SimulatorError(
        field,
        `onnx:${folder}: no model folder at ${absolute} (expected config.json and onnx/model.onnx)`,
      ),
    );
  }
  const hit = loaded.get(absolute);
  if (hit !== undefined) return hit;
  const model = (async () => {
    const [{ createOnnxWorldModel }, { loadOnnxModelFolder }] = await Promise.all([
      import('@terrarium/inference'),
      import('@terrarium/inference/node'),
    ]);
    const { decoder } = await loadOnnxModelFolder(absolute);
    return createOnnxWorldModel({
      decoder,
      id: `onnx:${path.basename(absolute)}`,
      runtime: 'onnxruntime-node',
    });
  })();
  loaded.set(absolute, model);
  model.catch(() => loaded.delete(absolute, model));
  return model;
}
