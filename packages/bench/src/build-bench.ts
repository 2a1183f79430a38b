import {
  isTransition,
  type BenchItem,
  type BenchManifest,
  type BenchTurn,
  type Sampling,
  type Trajectory,
} from '@terrarium/schema';
import { canonicalJson, compareCodeUnits, hashText, seedFromText, unitFromText } from './hash';
import { sampleTurnIndices } from './sampling';

export interface BenchSource {
  /** Name of the imported dataset the trajectory belongs to. */
  dataset: string;
  trajectory: Trajectory;
}

export interface BuildBenchInput {
  trajectories: Iterable<BenchSource>;
  name: string;
  version: number;
  sampling: Sampling;
  seed: number;
  /** Probability that a whole trajectory goes to the `dev` split. */
  devFraction: number;
  createdAt: string;
  sources: string[];
  /** Keep at most this many items per task (a seeded choice), so large domains do not dominate. */
  maxItemsPerTask?: number;
}

export interface BuiltBench {
  manifest: BenchManifest;
  items: BenchItem[];
}

/**
 * The id of an item: a content hash of (context, history, action), so the same item built on
 * another machine or from another import gets the same id. The history is hashed as a chain
 * (each turn's hash folds in the previous one), which gives the same ids in linear time.
 */
export function benchItemId(
  context: BenchItem['context'],
  history: readonly BenchTurn[],
  action: BenchItem['action'],
): string {
  let chain = historyChainStart(context);
  for (const turn of history) chain = extendHistoryChain(chain, turn);
  return itemIdFromChain(chain, action);
}

/**
 * Call ids are left out of the hash: each agent run draws new ones, so two items that differ only
 * in them are the same input. Keeping both would put one input with two different real answers in
 * a bench (tau2 telecom has 15 such pairs in the demo data), which no simulator, replay included,
 * can get both right.
 */
function withoutCallId<T extends object>(value: T): Omit<T, 'callId'> {
  if (!('callId' in value)) return value;
  const { callId: _dropped, ...rest } = value;
  return rest;
}

function hashableTurn(turn: BenchTurn) {
  return { action: withoutCallId(turn.action), observation: withoutCallId(turn.observation) };
}

/**
 * Tool schemas are left out too, as in replay's key: importers infer them per trajectory from the
 * calls it made (tau2 telecom), so they differ between runs of one task without the input differing.
 */
function historyChainStart(context: BenchItem['context']): string {
  return hashText(
    canonicalJson({ context: { task: context.task, systemPrompt: context.systemPrompt } }),
  );
}

function extendHistoryChain(chain: string, turn: BenchTurn): string {
  return hashText(`${chain}\n${canonicalJson(hashableTurn(turn))}`);
}

function itemIdFromChain(chain: string, action: BenchItem['action']): string {
  return hashText(`${chain}\n${canonicalJson({ action: withoutCallId(action) })}`);
}

/** Where a trajectory goes: decided by (seed, dataset, externalId) alone, so it never moves. */
export function splitOf(
  seed: number,
  dataset: string,
  externalId: string,
  devFraction: number,
): BenchItem['split'] {
  return unitFromText(canonicalJson([seed, dataset, externalId])) < devFraction ? 'dev' : 'test';
}

/** Every sampled transition of one trajectory as an item (ids computed, not yet deduped). */
export function trajectoryItems(
  source: BenchSource,
  sampling: Sampling,
  seed: number,
  devFraction: number,
): BenchItem[] {
  const { dataset, trajectory } = source;
  const transitions = trajectory.steps.filter(isTransition);
  const picked = new Set(
    sampleTurnIndices(
      transitions.length,
      sampling,
      seedFromText(canonicalJson([seed, dataset, trajectory.externalId])),
    ),
  );
  const context: BenchItem['context'] = {
    task: trajectory.task,
    systemPrompt: trajectory.systemPrompt,
    tools: trajectory.tools,
  };
  const split = splitOf(seed, dataset, trajectory.externalId, devFraction);
  const task = trajectory.sourceBenchmark ?? trajectory.domain;
  const items: BenchItem[] = [];
  const history: BenchTurn[] = [];
  let chain = historyChainStart(context);
  transitions.forEach((step, turnIndex) => {
    // isTransition guarantees an observation; the guard narrows the type.
    if (step.observation === null) return;
    if (picked.has(turnIndex)) {
      items.push({
        id: itemIdFromChain(chain, step.action),
        task,
        domain: trajectory.domain,
        split,
        origin: { dataset, trajectory: trajectory.externalId, stepIndex: step.index },
        turnIndex,
        totalTurns: transitions.length,
        context,
        history: history.slice(),
        action: step.action,
        real: step.observation,
      });
    }
    const turn: BenchTurn = { action: step.action, observation: step.observation };
    history.push(turn);
    chain = extendHistoryChain(chain, turn);
  });
  return items;
}

function compareItems(a: BenchItem, b: BenchItem): number {
  return (
    compareCodeUnits(a.task, b.task) ||
    compareCodeUnits(a.origin.dataset ?? '', b.origin.dataset ?? '') ||
    compareCodeUnits(a.origin.trajectory ?? '', b.origin.trajectory ?? '') ||
    a.turnIndex - b.turnIndex ||
    // Two runs may share a source id: the content decides, never the order they came in.
    compareCodeUnits(a.id, b.id)
  );
}

/**
 * Builds a frozen bench: samples transitions per trajectory, orders items by task, trajectory and
 * turn, drops items identical in (context, history, action) to an earlier one, optionally caps
 * each task with a seeded choice, and hashes the ids in order into `manifest.contentHash`.
 */
export function buildBench(input: BuildBenchInput): BuiltBench {
  const sampled: BenchItem[] = [];
  for (const source of input.trajectories) {
    sampled.push(...trajectoryItems(source, input.sampling, input.seed, input.devFraction));
  }
  sampled.sort(compareItems);
  const seen = new Set<string>();
  let items: BenchItem[] = [];
  for (const item of sampled) {
    if (seen.has(item.id)) continue;
    seen.add(item.id);
    items.push(item);
  }
  const duplicatesDropped = sampled.length - items.length;
  if (input.maxItemsPerTask !== undefined) {
    items = capPerTask(items, input.maxItemsPerTask, input.seed);
  }
  const byTask: Record<string, number> = {};
  for (const item of items) byTask[item.task] = (byTask[item.task] ?? 0) + 1;
  const manifest: BenchManifest = {
    name: input.name,
    version: input.version,
    createdAt: input.createdAt,
    sampling: input.sampling,
    seed: input.seed,
    sources: input.sources,
    devFraction: input.devFraction,
    itemCount: items.length,
    duplicatesDropped,
    byTask,
    contentHash: benchContentHash(items),
  };
  return { manifest, items };
}

/** Hash over the item ids in order. */
export function benchContentHash(items: readonly Pick<BenchItem, 'id'>[]): string {
  return hashText(items.map((item) => item.id).join('\n'));
}

/** Keeps per task the `max` items ranked first by a seeded hash of their id, in their order. */
function capPerTask(items: BenchItem[], max: number, seed: number): BenchItem[] {
  const byTask = new Map<string, BenchItem[]>();
  for (const item of items) {
    const list = byTask.get(item.task);
    if (list === undefined) byTask.set(item.task, [item]);
    else list.push(item);
  }
  const kept = new Set<string>();
  for (const list of byTask.values()) {
    const ranked = list
      .map((item) => ({ id: item.id, rank: unitFromText(canonicalJson([seed, item.id])) }))
      .toSorted((a, b) => a.rank - b.rank || compareCodeUnits(a.id, b.id));
    for (const { id } of ranked.slice(0, Math.max(0, max))) kept.add(id);
  }
  return items.filter((item) => kept.has(item.id));
}
