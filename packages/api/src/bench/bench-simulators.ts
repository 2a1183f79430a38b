import { crossTaskTwins, itemTrajectoryKey, protocolInput } from '@terrarium/bench';
import { rowActionText, rowObservationText } from '@terrarium/formats';
import type { Action, BenchItem, Domain, Trajectory } from '@terrarium/schema';
import {
  buildRetrievalIndex,
  createReplayWorldModel,
  createRetrievalWorldModel,
  leaveOut,
  replayHit,
  type ReplayWorldModel,
  type PromptFolder,
  type SearchOptions,
  type SimContext,
  type Transition,
  type WorldModel,
  withCircuitBreaker,
} from '@terrarium/worlds';
import { onnxModel, openAIModel } from '../simulate/resolve-simulator';
import { parseActionText } from '../simulate/chat-input';
import { parseSimSpec } from '../simulate/sim-spec';
import { itemTrajectory, itemTrajectoryId } from './item-trajectory';

export interface BenchSimulatorOptions {
  allowlist: readonly string[];
  /** Default: the server's undici transport. */
  fetch?: typeof fetch;
  /**
   * A folder laid out like the official `prompts/` (`--prompts DIR`): endpoints are then spoken to
   * as the official AgentWorldBench script does (row texts, its sampling and output parsing).
   */
  prompts?: PromptFolder | null;
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

/** The trajectory an item was taken from (see packages/bench `itemTrajectoryKey`). */
export const trajectoryKey = itemTrajectoryKey;

/**
 * What retrieval (and a model shown its neighbors) leaves out of the bench's corpus for an item:
 * the item's trajectory, every other trial of its task, and its task's twins recorded by another
 * benchmark (`crossTaskTwins`). Items imported from a bench file carry no task text, so only
 * their trajectory and its twins are left out.
 */
export function leaveOutItem(
  item: BenchItem,
  twins: ReadonlyMap<string, ReadonlySet<string>>,
): SearchOptions {
  const key = trajectoryKey(item);
  const excluded = twins.get(key);
  const options = leaveOut(key, item.context.task);
  return excluded === undefined ? options : { ...options, excludeTrajectories: excluded };
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
      const trajectory = itemTrajectory(item);
      corpus.push({
        ...trajectory,
        externalId: key,
        metadata: { ...trajectory.metadata, imported: item.origin.dataset === null },
      });
    }
  }
  return corpus;
}

const REPLAY_ID = 'replay';

/**
 * Replay answers an item from its own recording first. Some inputs are recorded twice with different
 * answers (tau2 telecom: one task, the same first checks, devices in different hidden states); the
 * bench keeps one of them, and replay must give that one's answer, not the other run's.
 */
function ownRecordingFirst(item: BenchItem, corpus: () => Promise<ReplayWorldModel>): WorldModel {
  let own: ReplayWorldModel | null = null;
  return {
    id: REPLAY_ID,
    predict(context, history, action, options) {
      // An open-loop run asks for exactly the item's own input: its recording's last transition
      // answers, as the lookup below would, without hashing the item's whole history twice (for
      // tau2 items of ~30 KB that hashing was most of a replay unit's cost).
      if (isOwnInput(item, context, history, action)) {
        const source = { trajectory: itemTrajectoryId(item), stepIndex: item.history.length };
        return Promise.resolve(replayHit(item.real, source, 0));
      }
      own ??= createReplayWorldModel([itemTrajectory(item)]);
      const found = own.lookup(context, history, action);
      return found.hit
        ? own.predict(context, history, action, options)
        : corpus().then((replay) => replay.predict(context, history, action, options));
    },
  };
}

/**
 * Whether a prediction's input is the item's own recorded one: its history and action objects
 * (what an open-loop run passes) in its own task. Every earlier turn must be a transition, as the
 * replay index chains only transitions; anything else takes the lookup.
 */
function isOwnInput(
  item: BenchItem,
  context: SimContext,
  history: readonly Transition[],
  action: Action,
): boolean {
  return (
    action === item.action &&
    context.domain === item.domain &&
    context.task === item.context.task &&
    context.systemPrompt === item.context.systemPrompt &&
    history.length === item.history.length &&
    history.every((turn, index) => turn === item.history[index] && turn.action.type !== 'message')
  );
}

/** A row's action text as the call or command it holds (markers off, a JSON call parsed). */
function readableAction(action: Action, domain: Domain): Action {
  return action.type === 'command'
    ? parseActionText(rowActionText(action.command), domain)
    : action;
}

function readableTransition(turn: Transition, domain: Domain): Transition {
  return {
    action: readableAction(turn.action, domain),
    observation: { ...turn.observation, content: rowObservationText(turn.observation.content) },
  };
}

/** An imported row's trajectory with its turns readable (built items are already). */
function readableTurns(trajectory: Trajectory): Trajectory {
  if (trajectory.metadata['imported'] !== true) return trajectory;
  return {
    ...trajectory,
    steps: trajectory.steps.map((step) => {
      if (step.observation === null) return step;
      const turn = readableTransition(
        { action: step.action, observation: step.observation },
        trajectory.domain,
      );
      return { ...step, action: turn.action, observation: turn.observation };
    }),
  };
}

/** The model spoken to with the item's row texts, whatever history the run shows it. */
function officialProtocol(model: WorldModel, item: BenchItem, prompts: PromptFolder): WorldModel {
  return {
    id: model.id,
    predict(_context, history, _action, options) {
      const input = protocolInput(item, history, prompts);
      return model.predict(input.context, input.history, input.action, options);
    },
  };
}

/**
 * A model that reads the calls inside an imported row's texts, as the retrieval corpus holds them
 * (rows from a dataset are already calls).
 */
function readableInputs(model: WorldModel, item: BenchItem): WorldModel {
  if (item.origin.dataset !== null) return model;
  return {
    id: model.id,
    predict: (context, history, action, predictOptions) =>
      model.predict(
        context,
        history.map((turn) => readableTransition(turn, item.domain)),
        readableAction(action, item.domain),
        predictOptions,
      ),
  };
}

/** `load`'s result, computed at the first call and shared; a failure is tried again next call. */
function memoized<T>(load: () => Promise<T>): () => Promise<T> {
  let result: Promise<T> | null = null;
  return () => {
    if (result === null) {
      const loading = load();
      result = loading;
      loading.catch(() => {
        if (result === loading) result = null;
      });
    }
    return result;
  };
}

/**
 * Simulators for one bench:
 * - `replay`: the bench's own recorded observations, so it scores 100 on every item it has seen.
 * - `retrieval`: BM25 over the bench's corpus, leaving the item's own trajectory, the other
 *   trials of its task and its task's twins from another benchmark out (`leaveOutItem`; with them
 *   in, every item's nearest neighbour is itself or its sibling's identical call, and retrieval
 *   would be replay).
 * - `onnx:` as for `simulate`, its prompt's neighbors from the bench's corpus (left out the same
 *   way as for retrieval).
 * - `openai:` as for `simulate`.
 */
export function createBenchSimulators(
  loadItems: () => Promise<readonly BenchItem[]>,
  options: BenchSimulatorOptions,
): BenchSimulators {
  const models = new Map<string, WorldModel | Promise<WorldModel>>();
  // The whole bench is read only when a simulator needs its corpus: an open-loop replay run
  // answers every item from the item itself (for 1,043 tau2 items the read took ~0.4 s of the
  // run's first units, and a large bench's items would all sit in memory for nothing).
  const benchItems = memoized(loadItems);
  const benchReplay = memoized(async () =>
    createReplayWorldModel(benchCorpus(await benchItems()), { id: REPLAY_ID }),
  );
  // Imported rows keep their file's texts; retrieval compares the calls inside them.
  const benchRetrieval = memoized(async () =>
    buildRetrievalIndex(benchCorpus(await benchItems()).map(readableTurns)),
  );
  const benchTwins = memoized(async () => crossTaskTwins(await benchItems()));
  return {
    async simulatorFor(sim, item) {
      const parsed = parseSimSpec(sim);
      switch (parsed.kind) {
        case 'replay': {
          // Built on the first input that is not an item's own (closed loop): an open-loop run
          // never needs the bench's whole corpus indexed.
          return ownRecordingFirst(item, benchReplay);
        }
        case 'retrieval': {
          const model = createRetrievalWorldModel(
            await benchRetrieval(),
            leaveOutItem(item, await benchTwins()),
          );
          return readableInputs(model, item);
        }
        case 'openai': {
          const prompts = options.prompts ?? null;
          let model = models.get(sim);
          if (model === undefined) {
            // A bench run sends every item to it: an unreachable endpoint must fail fast.
            model = withCircuitBreaker(
              openAIModel(parsed.baseUrl, parsed.model, {
                ...options,
                protocol: prompts === null ? 'templates' : 'agentworldbench',
              }),
            );
            models.set(sim, model);
          }
          if (prompts === null) return model;
          return officialProtocol(await model, item, prompts);
        }
        case 'onnx': {
          // The prompt's neighbors come from the bench's corpus, the item's trajectory and task
          // left out, as retrieval's answers do (the model folder is loaded once per process).
          const model = await onnxModel(sim, parsed.path, options, 'sim', {
            index: await benchRetrieval(),
            leaveOut: leaveOutItem(item, await benchTwins()),
          });
          return readableInputs(model, item);
        }
      }
    },
  };
}
