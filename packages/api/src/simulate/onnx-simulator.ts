import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { RetrievalIndex, WorldModel } from '@terrarium/worlds';
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

/**
 * Where a retrieval-augmented model (prompt format 3) finds the recorded transitions it is shown:
 * a dataset's retrieval index, leaving the simulated trajectory out (as `retrieval` does).
 */
export interface OnnxCorpus {
  index: RetrievalIndex;
  excludeTrajectory?: string;
}

type LoadedFolder = Awaited<
  ReturnType<(typeof import('@terrarium/inference/node'))['loadOnnxModelFolder']>
>;

// A loaded model holds an onnxruntime session (a few MB for the tiny one): keep a couple.
const loaded = new LruCache<Promise<LoadedFolder>>(2);

/**
 * A local ONNX model folder (config.json, onnx/model.onnx) run with onnxruntime-node, loaded once
 * per folder. onnxruntime is imported only when a model is first asked for. With `corpus`, the
 * model's prompts carry the nearest recorded transitions of that corpus; without, none.
 */
export async function onnxSimulator(
  folder: string,
  field = 'sim',
  corpus?: OnnxCorpus,
): Promise<WorldModel> {
  const absolute = path.resolve(folder);
  if (!existsSync(path.join(absolute, 'config.json'))) {
    throw new SimulatorError(
      field,
      `onnx:${folder}: no model folder at ${absolute} (expected config.json and onnx/model.onnx)`,
    );
  }
  let folderLoad = loaded.get(absolute);
  if (folderLoad === undefined) {
    const load = import('@terrarium/inference/node').then(({ loadOnnxModelFolder }) =>
      loadOnnxModelFolder(absolute),
    );
    folderLoad = load;
    loaded.set(absolute, load);
    load.catch(() => loaded.delete(absolute, load));
  }
  const [{ createOnnxWorldModel, promptNeighbors }, { decoder }] = await Promise.all([
    import('@terrarium/inference'),
    folderLoad,
  ]);
  return createOnnxWorldModel({
    decoder,
    id: `onnx:${path.basename(absolute)}`,
    runtime: 'onnxruntime-node',
    ...(corpus === undefined
      ? {}
      : {
          neighbors: (context, history, action) =>
            promptNeighbors(
              corpus.index,
              context,
              history,
              action,
              corpus.excludeTrajectory === undefined
                ? {}
                : { excludeTrajectory: corpus.excludeTrajectory },
            ),
        }),
  });
}
