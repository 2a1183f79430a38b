import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { PromptNeighbor } from '@terrarium/inference';
import type { Action } from '@terrarium/schema';
import type {
  RetrievalIndex,
  SearchOptions,
  SimContext,
  Transition,
  WorldModel,
} from '@terrarium/worlds';
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

/** The policy that ships with Terrarium (models/terrarium-policy-tiny), for curricula. */
export const BUNDLED_POLICY_FOLDER = fileURLToPath(
  new URL('../../../../models/terrarium-policy-tiny', import.meta.url),
);

/**
 * `onnx:PATH` of a shipped model folder as the CLI and the server take it (relative to the working
 * folder), or null when the folder is not there.
 */
export function shippedOnnxSpec(folder: string, cwd: string = process.cwd()): string | null {
  if (!existsSync(path.join(folder, 'config.json'))) return null;
  const relative = path.relative(cwd, folder);
  return `onnx:${relative.startsWith('..') ? folder : relative}`;
}

/** `onnx:PATH` of the bundled world model. */
export function bundledOnnxSpec(cwd: string = process.cwd()): string | null {
  return shippedOnnxSpec(BUNDLED_ONNX_FOLDER, cwd);
}

/**
 * Where a retrieval-augmented model (prompt format 3) finds the recorded transitions it is shown:
 * a dataset's retrieval index, leaving the simulated trajectory and its task out (as `retrieval`
 * does): fixed for a simulated trajectory, or decided per step for requests that name none (`/v1`).
 */
export interface OnnxCorpus {
  index: RetrievalIndex;
  leaveOut:
    | SearchOptions
    | ((context: SimContext, history: readonly Transition[], action: Action) => SearchOptions);
  /** Told the neighbors each prompt shows (`/v1` hands them to a client that asks). */
  onNeighbors?: (neighbors: readonly PromptNeighbor[]) => void;
}

type LoadedFolder = Awaited<
  ReturnType<(typeof import('@terrarium/inference/node'))['loadOnnxModelFolder']>
>;

// A loaded model holds an onnxruntime session (a few MB for the tiny ones): keep a few (a
// curriculum run with a simulator holds a policy and a world model at once).
const loaded = new LruCache<Promise<LoadedFolder>>(4);

/** Why `folder` is no model folder (no config.json there), or null when it looks like one. */
export function missingModelFolder(folder: string, field: string): SimulatorError | null {
  const absolute = path.resolve(folder);
  if (existsSync(path.join(absolute, 'config.json'))) return null;
  return new SimulatorError(
    field,
    `onnx:${folder}: no model folder at ${absolute} (expected config.json and onnx/model.onnx)`,
  );
}

/**
 * A local ONNX model folder (config.json, onnx/model.onnx) loaded with onnxruntime-node, once per
 * folder (world models and policies alike). onnxruntime is imported only when a model is first
 * asked for.
 */
export function loadedModelFolder(folder: string, field: string): Promise<LoadedFolder> {
  const absolute = path.resolve(folder);
  const missing = missingModelFolder(folder, field);
  if (missing !== null) return Promise.reject(missing);
  const known = loaded.get(absolute);
  if (known !== undefined) return known;
  const load = import('@terrarium/inference/node').then(({ loadOnnxModelFolder }) =>
    loadOnnxModelFolder(absolute),
  );
  loaded.set(absolute, load);
  load.catch(() => loaded.delete(absolute, load));
  return load;
}

/**
 * A local ONNX world model run with onnxruntime-node. With `corpus`, the model's prompts carry the
 * nearest recorded transitions of that corpus; without, none.
 */
export async function onnxSimulator(
  folder: string,
  field = 'sim',
  corpus?: OnnxCorpus,
): Promise<WorldModel> {
  const absolute = path.resolve(folder);
  const [{ createOnnxWorldModel, promptNeighbors }, { decoder, role }] = await Promise.all([
    import('@terrarium/inference'),
    loadedModelFolder(folder, field),
  ]);
  if (role.role !== 'world-model')
    throw new SimulatorError(
      field,
      `onnx:${folder} is a ${role.role} (its config.json says so), not a world model; use it as a curriculum's --policy`,
    );
  return createOnnxWorldModel({
    decoder,
    id: `onnx:${path.basename(absolute)}`,
    runtime: 'onnxruntime-node',
    ...(corpus === undefined
      ? {}
      : {
          neighbors: (context, history, action) => {
            const found = promptNeighbors(
              corpus.index,
              context,
              history,
              action,
              typeof corpus.leaveOut === 'function'
                ? corpus.leaveOut(context, history, action)
                : corpus.leaveOut,
            );
            corpus.onNeighbors?.(found);
            return found;
          },
        }),
  });
}
