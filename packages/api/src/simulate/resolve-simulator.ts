import type { Store } from '@terrarium/db';
import type { Trajectory, TrajectorySummary } from '@terrarium/schema';
import {
  buildRetrievalIndex,
  createOpenAIWorldModel,
  createReplayWorldModel,
  createRetrievalWorldModel,
  HostNotAllowedError,
  type RetrievalIndex,
  type WorldModel,
} from '@terrarium/worlds';
import { asChatCarriesIt } from './chat-input';
import { loadDataset } from './load-trajectories';
import { LruCache } from './lru';
import { onnxSimulator } from './onnx-simulator';
import { availableSimulators, parseSimSpec, SimulatorError } from './sim-spec';

export interface ResolveOptions {
  store: Store;
  /** The trajectory to be simulated: replay and retrieval draw on its dataset. */
  trajectory: Pick<TrajectorySummary, 'id' | 'datasetId'>;
  /** Hosts `openai:` endpoints may be on. */
  allowlist: readonly string[];
  fetch: typeof fetch;
  /** Let `onnx:PATH` name any folder (the CLI); a server loads only the folders it lists. */
  anyOnnxPath?: boolean;
}

/** Loaded datasets and the indexes built on them, per store (two stores never share rows). */
interface Caches {
  datasets: LruCache<Promise<Trajectory[]>>;
  replay: LruCache<Promise<WorldModel>>;
  retrieval: LruCache<Promise<RetrievalIndex>>;
}

// Bounded: each entry holds a whole dataset (or an index over one) in memory.
const DATASETS_KEPT = 4;
const INDEXES_KEPT = 16;
const cachesByStore = new WeakMap<Store, Caches>();

function cachesOf(store: Store): Caches {
  let caches = cachesByStore.get(store);
  if (caches === undefined) {
    caches = {
      datasets: new LruCache(DATASETS_KEPT),
      replay: new LruCache(INDEXES_KEPT),
      retrieval: new LruCache(INDEXES_KEPT),
    };
    cachesByStore.set(store, caches);
  }
  return caches;
}

/** Cached values are keyed by the dataset's size too, so an import into the dataset refreshes them. */
async function datasetKey(store: Store, datasetId: string): Promise<string> {
  const page = await store.listTrajectories({ datasetId }, { offset: 0, limit: 1 });
  return `${datasetId}\u0000${page.total}`;
}

function cached<V>(cache: LruCache<Promise<V>>, key: string, build: () => Promise<V>): Promise<V> {
  const hit = cache.get(key);
  if (hit !== undefined) return hit;
  const value = build();
  cache.set(key, value);
  // A failed build is not kept: the next call tries again.
  value.catch(() => cache.delete(key, value));
  return value;
}

function datasetOf(store: Store, key: string, datasetId: string): Promise<Trajectory[]> {
  return cached(cachesOf(store).datasets, key, () => loadDataset(store, datasetId));
}

export interface DatasetSimulatorOptions {
  /** Leave this trajectory out of a retrieval index (see `resolveSimulator`). */
  exclude?: string;
  /**
   * Index the dataset as a chat client describes it (`asChatCarriesIt`), for the
   * `/v1/chat/completions` endpoint where inputs arrive as rendered text.
   */
  chat?: boolean;
}

/** Replay or retrieval over one dataset of the store. */
export async function datasetSimulator(
  store: Store,
  kind: 'replay' | 'retrieval',
  datasetId: string,
  options: DatasetSimulatorOptions = {},
): Promise<WorldModel> {
  const caches = cachesOf(store);
  const dataset = await datasetKey(store, datasetId);
  const chat = options.chat ?? false;
  const load = async () => {
    const trajectories = await datasetOf(store, dataset, datasetId);
    return chat ? trajectories.map(asChatCarriesIt) : trajectories;
  };
  if (kind === 'replay') {
    return cached(caches.replay, `${dataset}\u0000${chat}`, async () =>
      createReplayWorldModel(await load()),
    );
  }
  const excluded = options.exclude ?? '';
  const index = await cached(
    caches.retrieval,
    `${dataset}\u0000${chat}\u0000${excluded}`,
    async () =>
      buildRetrievalIndex(
        (await load()).filter((trajectory) => trajectory.externalId !== excluded),
      ),
  );
  return createRetrievalWorldModel(index);
}

/** The world model for an `openai:URL#MODEL` spec; a host outside the allowlist is a 400. */
export function openAIModel(
  baseUrl: string,
  model: string,
  options: Pick<ResolveOptions, 'allowlist' | 'fetch'> & {
    /** `agentworldbench`: the official protocol (see packages/worlds' OpenAI model). */
    protocol?: 'templates' | 'agentworldbench';
  },
  field = 'sim',
): WorldModel {
  try {
    return createOpenAIWorldModel({
      baseUrl,
      model,
      fetch: options.fetch,
      allowlist: options.allowlist,
      id: `openai:${baseUrl}#${model}`,
      ...(options.protocol === undefined ? {} : { protocol: options.protocol }),
    });
  } catch (error) {
    if (error instanceof HostNotAllowedError) {
      throw new SimulatorError(
        field,
        `${error.message} (set TERRARIUM_ENDPOINT_ALLOWLIST, comma-separated hosts)`,
      );
    }
    if (error instanceof TypeError) throw new SimulatorError(field, error.message);
    throw error;
  }
}

/**
 * A server loads only the model folders it lists (the bundled one, those in TERRARIUM_SIMULATORS):
 * a request must not make it open any path on disk. The CLI, acting for its user, opens any.
 */
export function onnxModel(
  spec: string,
  folder: string,
  options: { anyOnnxPath?: boolean },
  field = 'sim',
): Promise<WorldModel> {
  if (!options.anyOnnxPath && !availableSimulators().some((sim) => sim.spec === spec)) {
    return Promise.reject(
      new SimulatorError(
        field,
        `${spec} is not a configured model folder; the server loads only those listed by simulate.available (add it to TERRARIUM_SIMULATORS)`,
      ),
    );
  }
  return onnxSimulator(folder, field);
}

/**
 * The world model a SimSpec names, for simulating `trajectory`:
 * - `replay`: the recorded transitions of the trajectory's own dataset (so the trajectory itself).
 * - `retrieval`: BM25 over the dataset's transitions **leaving the simulated trajectory out**; with
 *   it in, the nearest neighbour of every step is the step itself and retrieval would be replay.
 *   Indexes are cached per (dataset, left-out trajectory) in a bounded LRU.
 * - `openai:URL#MODEL`: an OpenAI-compatible endpoint whose host is on the allowlist.
 * - `onnx:PATH`: a local model folder run with onnxruntime-node (see `onnxModel` on which folders).
 */
export async function resolveSimulator(spec: string, options: ResolveOptions): Promise<WorldModel> {
  const parsed = parseSimSpec(spec);
  switch (parsed.kind) {
    case 'replay':
      return datasetSimulator(options.store, 'replay', options.trajectory.datasetId);
    case 'retrieval':
      return datasetSimulator(options.store, 'retrieval', options.trajectory.datasetId, {
        exclude: options.trajectory.id,
      });
    case 'openai':
      return openAIModel(parsed.baseUrl, parsed.model, options);
    case 'onnx':
      return onnxModel(spec, parsed.path, options);
  }
}
