import type { BenchItem, Trajectory } from '@terrarium/schema';
import {
  buildRetrievalIndex,
  createReplayWorldModel,
  createRetrievalWorldModel,
  type ReplayWorldModel,
  type RetrievalIndex,
  type WorldModel,
  withCircuitBreaker,
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

/** An item's recorded turns, its own transition last, each as comparable text. */
function turnsOf(item: BenchItem): string[] {
  return [
    ...item.history.map((turn) => JSON.stringify([turn.action, turn.observation])),
    JSON.stringify([item.action, item.real]),
  ];
}

/**
 * The trajectory an item was taken from. Items imported from an AgentWorldBench file do not name
 * one, but every item of a trajectory starts with its first transition: items sharing the task and
 * first transition are taken as one trajectory. (Distinct trajectories that begin alike are merged,
 * which only leaves more out of retrieval; keying them by item id instead let retrieval read an
 * item's answer from the history of a later item of its own trajectory.)
 */
export function trajectoryKey(item: BenchItem): string {
  if (item.origin.trajectory !== null) return item.origin.trajectory;
  const first = item.history[0];
  const opening =
    first === undefined ? [item.action, item.real] : [first.action, first.observation];
  return `imported\u0000${item.task}\u0000${JSON.stringify(opening)}`;
}

function isPrefix(shorter: readonly string[], longer: readonly string[]): boolean {
  return shorter.length < longer.length && shorter.every((turn, i) => turn === longer[i]);
}

/**
 * The recorded transitions a bench carries, as trajectories named by `trajectoryKey`: each item
 * whose turns are not a prefix of another item's of the same trajectory (for a built bench, the
 * item with the longest history, which holds every earlier item as a prefix). Benches are thereby
 * self-contained: replay and retrieval need no dataset, so later imports or deletions never change
 * a bench's scores, and imported AgentWorldBench files work the same way.
 */
export function benchCorpus(items: readonly BenchItem[]): Trajectory[] {
  const groups = new Map<string, BenchItem[]>();
  for (const item of items) {
    const key = trajectoryKey(item);
    const group = groups.get(key);
    if (group === undefined) groups.set(key, [item]);
    else group.push(item);
  }
  const corpus: Trajectory[] = [];
  for (const [key, group] of groups) {
    const longestFirst = group
      .map((item) => ({ item, turns: turnsOf(item) }))
      .toSorted((a, b) => b.turns.length - a.turns.length);
    const kept: string[][] = [];
    for (const { item, turns } of longestFirst) {
      if (kept.some((longer) => isPrefix(turns, longer))) continue;
      kept.push(turns);
      corpus.push({ ...itemTrajectory(item), externalId: key });
    }
  }
  return corpus;
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
            excludeTrajectory: trajectoryKey(item),
          });
        case 'openai': {
          let model = models.get(sim);
          if (model === undefined) {
            // A bench run sends every item to it: an unreachable endpoint must fail fast.
            model = withCircuitBreaker(openAIModel(parsed.baseUrl, parsed.model, options));
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
