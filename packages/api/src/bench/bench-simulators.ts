import type { BenchItem, Trajectory } from '@terrarium/schema';
import {
  buildRetrievalIndex,
  createReplayWorldModel,
  createRetrievalWorldModel,
  type ReplayWorldModel,
  type RetrievalIndex,
  type WorldModel,
} from '@terrarium/worlds';
import { onnxModel, openAIModel } from '../simulate/resolve-simulator';
import { parseSimSpec } from '../simulate/sim-spec';
import { itemTrajectory } from './item-trajectory';

export interface BenchSimulatorOptions {
  allowlist: readonly string[];
  fetch: typeof fetch;
  /** Let `onnx:PATH` name any folder (CLI and workers act for their user); a server lists its own. */
  anyOnnxPath: boolean;
}

export interface BenchSimulators {
  /** The world model `sim` names, set up to predict `item` (retrieval leaves its trajectory out). */
  simulatorFor(sim: string, item: BenchItem): Promise<WorldModel>;
}

/**
 * The recorded transitions a bench carries: for each origin trajectory, its item with the longest
 * history (which holds every earlier item of that trajectory as a prefix). Benches are thereby
 * self-contained: replay and retrieval need no dataset, so later imports or deletions never change
 * a bench's scores, and imported AgentWorldBench files work the same way.
 */
export function benchCorpus(items: readonly BenchItem[]): Trajectory[] {
  const longest = new Map<string, BenchItem>();
  for (const item of items) {
    const key = item.origin.trajectory ?? item.id;
    const kept = longest.get(key);
    if (kept === undefined || kept.history.length < item.history.length) longest.set(key, item);
  }
  return [...longest.values()].map(itemTrajectory);
}

/**
 * Replay answers an item from its own recording first. Some inputs are recorded twice with different
 * answers (tau2 telecom: one task, the same first checks, devices in different hidden states); the
 * bench keeps one of them, and replay must give that one's answer, not the other run's.
 */
function ownRecordingFirst(item: BenchItem, corpus: ReplayWorldModel): WorldModel {
  const own = createReplayWorldModel([itemTrajectory(item)]);
  return {
    id: corpus.id,
    predict(context, history, action, options) {
      const found = own.lookup(context, history, action);
      return found.hit
        ? own.predict(context, history, action, options)
        : corpus.predict(context, history, action, options);
    },
  };
}

/**
 * Simulators for one bench:
 * - `replay`: the bench's own recorded observations, so it scores 100 on every item it has seen.
 * - `retrieval`: BM25 over the bench's corpus, leaving the item's own trajectory out (with it in,
 *   every item's nearest neighbour is itself and retrieval would be replay).
 * - `openai:` and `onnx:` as for `simulate`.
 */
export function createBenchSimulators(
  items: readonly BenchItem[],
  options: BenchSimulatorOptions,
): BenchSimulators {
  let replay: ReplayWorldModel | null = null;
  let retrieval: RetrievalIndex | null = null;
  const models = new Map<string, WorldModel | Promise<WorldModel>>();
  return {
    async simulatorFor(sim, item) {
      const parsed = parseSimSpec(sim);
      switch (parsed.kind) {
        case 'replay': {
          replay ??= createReplayWorldModel(benchCorpus(items));
          return ownRecordingFirst(item, replay);
        }
        case 'retrieval':
          retrieval ??= buildRetrievalIndex(benchCorpus(items));
          return createRetrievalWorldModel(retrieval, {
            excludeTrajectory: item.origin.trajectory ?? item.id,
          });
        case 'openai': {
          let model = models.get(sim);
          if (model === undefined) {
            model = openAIModel(parsed.baseUrl, parsed.model, options);
            models.set(sim, model);
          }
          return model;
        }
        case 'onnx': {
          let model = models.get(sim);
          if (model === undefined) {
            model = onnxModel(sim, parsed.path, options);
            models.set(sim, model);
          }
          return model;
        }
      }
    },
  };
}
