import type { Action, Observation, Trajectory } from '@terrarium/schema';
import { actionKey, observationKey } from '../action-text';
import { hashText } from '../hash';
import { predictionInputs } from '../trajectory-inputs';
import {
  NO_USAGE,
  answeredCallId,
  type Now,
  type Prediction,
  type SimContext,
  type Transition,
  type WorldModel,
} from '../world-model';

/** Where a recorded observation came from. */
export interface RecordedSource {
  trajectory: string;
  stepIndex: number;
}

export type ReplayLookup =
  { hit: true; observation: Observation; source: RecordedSource } | { hit: false };

export interface ReplayWorldModel extends WorldModel {
  /** The typed form of `predict`'s lookup, for callers that branch on hit and miss. */
  lookup(context: SimContext, history: readonly Transition[], action: Action): ReplayLookup;
  readonly size: number;
}

interface Entry {
  actionKey: string;
  observation: Observation;
  source: RecordedSource;
}

/**
 * Key of a (context, history, action): call ids are left out (each run draws new ones), everything
 * else counts. The task and system prompt are part of it because the same first call (`SHOW
 * TABLES`, a lookup by id) answers differently in another task's environment: without them 273 of
 * InterCode SQL's 5,867 transitions replay another database's answer, with them none do. (In tau2
 * telecom 35 of 689 still differ: tasks that read the same hide different device states.) Tool
 * schemas are left out: importers infer them per trajectory from the calls it made. The history
 * part is chained so each transition is hashed once while indexing.
 */
function contextKey(context: SimContext): string {
  return hashText(
    `${context.domain}\u0001${context.task ?? ''}\u0002${context.systemPrompt ?? ''}`,
  );
}

/**
 * The key of a history hashed from scratch: each transition's texts again on every call. Kept as
 * the reference that `createHistoryKeyer` must agree with (tests, benchmarks).
 */
export function replayHistoryKey(context: SimContext, history: readonly Transition[]): string {
  let key = contextKey(context);
  for (const transition of history) key = chainKey(key, transition);
  return key;
}

export interface HistoryKeyer {
  (context: SimContext, history: readonly Transition[]): string;
  /** Transitions hashed so far (each at most once per history key before it). */
  readonly hashed: number;
}

/**
 * `replayHistoryKey` with the chain remembered per transition object: teacher forcing asks for
 * the key of every prefix of one trajectory (`predictionInputs` shares the transition objects
 * between them), so hashing the whole history each time cost O(n²) text per trajectory (a 100-step
 * SWE-agent run re-hashed ~5,000 observations); now each transition is hashed once and a lookup
 * walks its history through a WeakMap. A memo entry records the key it was chained onto, so a
 * transition reused under another history is hashed again, never answered wrongly. Transitions
 * are treated as immutable once looked up (as everywhere in the worlds package).
 */
export function createHistoryKeyer(): HistoryKeyer {
  const contexts = new WeakMap<SimContext, string>();
  const chained = new WeakMap<Transition, { previous: string; key: string }>();
  const keyer = Object.assign(
    (context: SimContext, history: readonly Transition[]): string => {
      let key = contexts.get(context);
      if (key === undefined) {
        key = contextKey(context);
        contexts.set(context, key);
      }
      for (const transition of history) {
        const memo = chained.get(transition);
        if (memo !== undefined && memo.previous === key) {
          key = memo.key;
          continue;
        }
        const next = chainKey(key, transition);
        keyer.hashed++;
        chained.set(transition, { previous: key, key: next });
        key = next;
      }
      return key;
    },
    { hashed: 0 },
  );
  return keyer;
}

function chainKey(previous: string, transition: Transition): string {
  return hashText(
    `${previous}\u0001${actionKey(transition.action)}\u0002${observationKey(transition.observation)}`,
  );
}

function entryKey(history: string, action: string): string {
  return hashText(`${history}\u0003${action}`);
}

/**
 * Replays recorded transitions: for an identical (task, history, action) it returns the recorded
 * observation with provenance cache `hit`. A miss is still a Prediction, so the backend drops into
 * any place a WorldModel goes, but an unmistakable one: provenance cache `miss`, an empty `text`
 * observation and `detail.reason`; `lookup` gives the same answer as a tagged union. When the same
 * (history, action) was recorded more than once, the first recording wins.
 */
export function createReplayWorldModel(
  trajectories: Iterable<Trajectory>,
  options: { id?: string; now?: Now } = {},
): ReplayWorldModel {
  const now = options.now ?? (() => performance.now());
  const index = new Map<string, Entry[]>();
  let size = 0;
  for (const trajectory of trajectories) {
    let history: string | null = null;
    for (const input of predictionInputs(trajectory)) {
      history ??= contextKey(input.context);
      const key = actionKey(input.action);
      const slot = entryKey(history, key);
      const entries = index.get(slot) ?? [];
      if (!entries.some((entry) => entry.actionKey === key)) {
        entries.push({
          actionKey: key,
          observation: input.expected,
          source: { trajectory: trajectory.externalId, stepIndex: input.stepIndex },
        });
        index.set(slot, entries);
        size++;
      }
      history = chainKey(history, { action: input.action, observation: input.expected });
    }
  }

  const historyKey = createHistoryKeyer();

  function lookup(
    context: SimContext,
    history: readonly Transition[],
    action: Action,
  ): ReplayLookup {
    const key = actionKey(action);
    const entry = index
      .get(entryKey(historyKey(context, history), key))
      ?.find((e) => e.actionKey === key);
    return entry === undefined
      ? { hit: false }
      : { hit: true, observation: entry.observation, source: entry.source };
  }

  return {
    id: options.id ?? 'replay',
    size,
    lookup,
    predict(context: SimContext, history: Transition[], action: Action): Promise<Prediction> {
      const started = now();
      const found = lookup(context, history, action);
      const latencyMs = now() - started;
      if (!found.hit) {
        return Promise.resolve({
          observation: { kind: 'text', content: '', callId: answeredCallId(action) },
          usage: NO_USAGE,
          latencyMs,
          provenance: {
            backend: 'replay',
            cache: 'miss',
            detail: { reason: 'no recorded transition with this history and action' },
          },
        });
      }
      return Promise.resolve(replayHit(found.observation, found.source, latencyMs));
    },
  };
}

/** What replay answers when it holds a recording of the input: the recorded observation. */
export function replayHit(
  observation: Observation,
  source: RecordedSource,
  latencyMs: number,
): Prediction {
  return {
    observation,
    usage: NO_USAGE,
    latencyMs,
    provenance: {
      backend: 'replay',
      cache: 'hit',
      detail: { trajectory: source.trajectory, stepIndex: source.stepIndex },
    },
  };
}
