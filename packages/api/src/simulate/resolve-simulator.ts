import type { Store } from '@terrarium/db';
import type { Action, Trajectory, TrajectorySummary } from '@terrarium/schema';
import {
  buildRetrievalIndex,
  createOpenAIWorldModel,
  createReplayWorldModel,
  createRetrievalWorldModel,
  HostNotAllowedError,
  leaveOut,
  type ReplayWorldModel,
  type RetrievalIndex,
  type RetryPolicy,
  type SearchOptions,
  type SimContext,
  type Transition,
  type WorldModel,
  withCircuitBreaker,
} from '@terrarium/worlds';
import { asChatCarriesIt } from './chat-input';
import { loadDataset } from './load-trajectories';
import { LruCache } from './lru';
import { byRecordedRun } from './recorded-lineage';
import { missingModelFolder, onnxSimulator, type OnnxCorpus } from './onnx-simulator';
import { endpointClient } from './server-transport';
import {
  API_KEY_HINT,
  availableSimulators,
  endpointApiKey,
  parseSimSpec,
  SimulatorError,
} from './sim-spec';

export interface ResolveOptions {
  store: Store;
  /** The trajectory to be simulated: replay and retrieval draw on its dataset. */
  trajectory: Pick<TrajectorySummary, 'id' | 'datasetId'>;
  /** Hosts `openai:` endpoints may be on. */
  allowlist: readonly string[];
  /** Default: the server's undici transport (`serverTransport`). */
  fetch?: typeof fetch;
  /** `openai:` retries (default: the pool's, four attempts with backoff). */
  retry?: RetryPolicy;
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
  /** What retrieval leaves out of the dataset's index (see `leaveOut` and `resolveSimulator`). */
  leaveOut?: SearchOptions;
  /**
   * Index the dataset as a chat client describes it (`asChatCarriesIt`), for the
   * `/v1/chat/completions` endpoint where inputs arrive as rendered text.
   */
  chat?: boolean;
  /**
   * Retrieval for a request that names no trajectory (`/v1`): leave out the recorded run the
   * request's own history and action come from (found as replay finds it, every copy of it), so
   * a client asking about a recorded row never gets that row's answer back. See `byRecordedRun`.
   */
  leaveOutRecorded?: boolean;
}

/**
 * A dataset as `/v1` searches it: its chat-form index (`asChatCarriesIt`, one id per recorded
 * run) and, per request, what to leave out of it: the recorded run the request's own history and
 * action come from (found as replay finds it) and every trial of its task. `/v1`'s retrieval
 * answers from it, and the bundled model served there reads its neighbors from it, so both leave
 * out the same recordings.
 */
export interface RecordedCorpus {
  index: RetrievalIndex;
  leaveOut(context: SimContext, history: readonly Transition[], action: Action): SearchOptions;
}

const recordedCorpora = new WeakMap<Store, LruCache<Promise<RecordedCorpus>>>();

async function recordedCorpusOf(
  store: Store,
  key: string,
  load: () => Promise<Trajectory[]>,
): Promise<RecordedCorpus> {
  let cache = recordedCorpora.get(store);
  if (cache === undefined) {
    cache = new LruCache(DATASETS_KEPT);
    recordedCorpora.set(store, cache);
  }
  return cached(cache, key, async () => {
    const trajectories = await load();
    const runs = byRecordedRun(trajectories);
    const replay: ReplayWorldModel = createReplayWorldModel(trajectories);
    const taskOf = new Map(
      trajectories.map((trajectory) => [trajectory.externalId, trajectory.task]),
    );
    return {
      index: buildRetrievalIndex(runs.trajectories),
      leaveOut(context, history, action) {
        const recorded = replay.lookup(context, history, action);
        const source = recorded.hit ? recorded.source.trajectory : undefined;
        const run = source === undefined ? undefined : runs.runOf.get(source);
        return source === undefined || run === undefined
          ? {}
          : leaveOut(run, taskOf.get(source) ?? null);
      },
    };
  });
}

/** The chat-form corpus of one dataset of the store (see `RecordedCorpus`). */
export async function recordedCorpus(store: Store, datasetId: string): Promise<RecordedCorpus> {
  const dataset = await datasetKey(store, datasetId);
  return recordedCorpusOf(store, `${dataset}\u0000true`, async () =>
    (await datasetOf(store, dataset, datasetId)).map(asChatCarriesIt),
  );
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
  if (options.leaveOutRecorded === true) {
    const corpus = await recordedCorpusOf(store, `${dataset}\u0000${chat}`, load);
    return {
      id: 'retrieval',
      predict(context, history, action, predictOptions) {
        const model = createRetrievalWorldModel(
          corpus.index,
          corpus.leaveOut(context, history, action),
        );
        return model.predict(context, history, action, predictOptions);
      },
    };
  }
  const index = await cached(caches.retrieval, `${dataset}\u0000${chat}`, async () =>
    buildRetrievalIndex(await load()),
  );
  return createRetrievalWorldModel(index, options.leaveOut ?? {});
}

/**
 * The retrieval index over a whole dataset (cached, the entry `retrieval` uses): a caller leaves a
 * trajectory and its task out per search (`leaveOutStored`), as the bundled model's prompt
 * neighbors do (packages/inference `promptNeighbors`).
 */
export async function datasetRetrievalIndex(
  store: Store,
  datasetId: string,
): Promise<RetrievalIndex> {
  const dataset = await datasetKey(store, datasetId);
  return cached(cachesOf(store).retrieval, `${dataset}\u0000false`, async () =>
    buildRetrievalIndex(await datasetOf(store, dataset, datasetId)),
  );
}

/**
 * What simulating a stored trajectory leaves out of its dataset's index: the trajectory and every
 * trial of its task (see `leaveOut` in packages/worlds).
 */
export async function leaveOutStored(
  store: Store,
  trajectory: Pick<TrajectorySummary, 'id' | 'datasetId'>,
): Promise<SearchOptions> {
  const dataset = await datasetKey(store, trajectory.datasetId);
  const recorded = (await datasetOf(store, dataset, trajectory.datasetId)).find(
    (candidate) => candidate.externalId === trajectory.id,
  );
  return leaveOut(trajectory.id, recorded?.task ?? null);
}

/** The world model for an `openai:URL#MODEL` spec; a host outside the allowlist is a 400. */
export function openAIModel(
  baseUrl: string,
  model: string,
  options: Pick<ResolveOptions, 'allowlist' | 'fetch' | 'retry'> & {
    /** `agentworldbench`: the official protocol (see packages/worlds' OpenAI model). */
    protocol?: 'templates' | 'agentworldbench';
  },
  field = 'sim',
): WorldModel {
  try {
    return createOpenAIWorldModel({
      baseUrl,
      model,
      ...endpointApiKey(baseUrl),
      apiKeyHint: API_KEY_HINT,
      ...endpointClient(options.fetch),
      allowlist: options.allowlist,
      ...(options.retry === undefined ? {} : { retry: options.retry }),
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
  corpus?: OnnxCorpus,
): Promise<WorldModel> {
  const refused = unlistedOnnx(spec, options, field);
  if (refused !== null) return Promise.reject(refused);
  return onnxSimulator(folder, field, corpus);
}

function unlistedOnnx(
  spec: string,
  options: { anyOnnxPath?: boolean },
  field: string,
): SimulatorError | null {
  if (options.anyOnnxPath || availableSimulators().some((sim) => sim.spec === spec)) return null;
  return new SimulatorError(
    field,
    `${spec} is not a configured model folder; the server loads only the model folders the Models page lists (add it to TERRARIUM_SIMULATORS)`,
  );
}

/**
 * Refuses, before any work starts, a simulator spec nothing could run: a malformed spec, an
 * endpoint off the allowlist, a model folder this server does not load or that is not there.
 * Cheap (no model is loaded, no request sent): a bench run checks its simulators with it rather
 * than storing a run whose every unit fails.
 */
export function checkSimulator(
  spec: string,
  options: Pick<ResolveOptions, 'allowlist' | 'anyOnnxPath'>,
  field = 'sim',
): void {
  const parsed = parseSimSpec(spec, field);
  if (parsed.kind === 'openai') openAIModel(parsed.baseUrl, parsed.model, options, field);
  if (parsed.kind === 'onnx') {
    const refused = unlistedOnnx(spec, options, field) ?? missingModelFolder(parsed.path, field);
    if (refused !== null) throw refused;
  }
}

/**
 * The world model a SimSpec names, for simulating `trajectory`:
 * - `replay`: the recorded transitions of the trajectory's own dataset (so the trajectory itself).
 * - `retrieval`: BM25 over the dataset's transitions **leaving the simulated trajectory and every
 *   trial of its task out**; with it in, the nearest neighbour of every step is the step itself
 *   and retrieval would be replay, and a sibling trial answers the same calls the same way. One
 *   index per dataset is cached in a bounded LRU; what is left out is decided per search.
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
        leaveOut: await leaveOutStored(options.store, options.trajectory),
      });
    case 'openai':
      // One breaker per simulation: after 5 unreachable answers in a row the remaining steps fail
      // at once (each recorded as failed) instead of each spending four attempts with backoff.
      return withCircuitBreaker(openAIModel(parsed.baseUrl, parsed.model, options));
    case 'onnx':
      // A retrieval-augmented model is shown the dataset's nearest recorded transitions, left
      // out as for `retrieval` (the simulated trajectory and its task).
      return onnxModel(spec, parsed.path, options, 'sim', {
        index: await datasetRetrievalIndex(options.store, options.trajectory.datasetId),
        leaveOut: await leaveOutStored(options.store, options.trajectory),
      });
  }
}
