import type { Action, Observation, Trajectory } from '@terrarium/schema';
import { actionKey } from '../action-text';
import { transitionsOf } from '../trajectory-inputs';
import { answeredCallId, type Now, type Prediction, type WorldModel } from '../world-model';
import { isCacheable as defaultRule, type CacheRule } from './cacheable';
import type { RecordedSource } from './replay';

export interface CacheStats {
  hits: number;
  misses: number;
  /** Recorded or model responses the rule kept out of the cache. */
  rejected: number;
  size: number;
}

export interface CacheThenModelWorldModel extends WorldModel {
  stats(): CacheStats;
}

interface Cached {
  observation: Observation;
  /** Null for a response the model produced (kept only with `cacheModelResponses`). */
  source: RecordedSource | null;
}

/**
 * As StableToolBench's virtual API server: a call already seen (same tool name and canonical JSON
 * arguments, or the same command) gets the recorded real response; any other goes to `model`.
 * Unlike replay, the history does not have to match: the call alone is the key. What enters the
 * cache is decided by `isCacheable` (by default every response except transient failures such as
 * rate limits, 429/5xx and timeouts). With `cacheModelResponses`, a model's answer is kept and
 * served for the same call later, as StableToolBench does.
 */
export function createCacheThenModelWorldModel(options: {
  trajectories: Iterable<Trajectory>;
  model: WorldModel;
  isCacheable?: CacheRule;
  cacheModelResponses?: boolean;
  id?: string;
  now?: Now;
}): CacheThenModelWorldModel {
  const rule = options.isCacheable ?? defaultRule;
  const now = options.now ?? (() => performance.now());
  const cache = new Map<string, Cached>();
  let hits = 0;
  let misses = 0;
  let rejected = 0;

  function remember(action: Action, observation: Observation, source: RecordedSource | null) {
    const key = actionKey(action);
    if (cache.has(key)) return;
    if (rule(observation)) cache.set(key, { observation, source });
    else rejected++;
  }

  for (const trajectory of options.trajectories) {
    for (const { stepIndex, transition } of transitionsOf(trajectory)) {
      remember(transition.action, transition.observation, {
        trajectory: trajectory.externalId,
        stepIndex,
      });
    }
  }

  return {
    id: options.id ?? `cache-then-${options.model.id}`,
    stats: () => ({ hits, misses, rejected, size: cache.size }),
    async predict(context, history, action, predictOptions): Promise<Prediction> {
      const started = now();
      const cached = cache.get(actionKey(action));
      if (cached !== undefined) {
        hits++;
        return {
          observation: { ...cached.observation, callId: answeredCallId(action) },
          usage: { inputTokens: 0, outputTokens: 0 },
          latencyMs: now() - started,
          provenance: {
            backend: 'cache-then-model',
            cache: 'hit',
            detail:
              cached.source === null ? { from: 'model' } : { from: 'recording', ...cached.source },
          },
        };
      }
      misses++;
      const predicted = await options.model.predict(context, history, action, predictOptions);
      if (options.cacheModelResponses === true) remember(action, predicted.observation, null);
      return {
        ...predicted,
        latencyMs: now() - started,
        provenance: {
          ...predicted.provenance,
          backend: 'cache-then-model',
          cache: 'miss',
          detail: { model: options.model.id, modelProvenance: { ...predicted.provenance } },
        },
      };
    },
  };
}
