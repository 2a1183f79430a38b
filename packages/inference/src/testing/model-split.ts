/// <reference types="node" />
// Training, evaluation and test support (reads files): the bundled model's data, every trajectory
// of the MIT sources keyed by task, the task split, and the retrieval corpus its prompts draw
// neighbors from (the training side only). models/export-examples.ts, models/evaluate.ts and the
// split test all go through here.
import type { Trajectory } from '@terrarium/schema';
import {
  buildRetrievalIndex,
  predictionInputs,
  type Neighbor,
  type PredictionInput,
  type RetrievalIndex,
} from '@terrarium/worlds';
import { airlineCustomerOf } from '../model-split';
import { PROMPT_NEIGHBORS, promptNeighbors, type PromptNeighbor } from '../prompt';
import { isHeldOutTask, keyedTrajectories, sourceLabel } from './held-out';

export interface SplitItem {
  key: string;
  task: string;
  source: string;
  heldOut: boolean;
  trajectory: Trajectory;
  inputs: PredictionInput[];
  /** The airline customer the task is about (`airlineCustomer`), null elsewhere. */
  customer: string | null;
}

/** The customer an airline task is about (`airlineCustomerOf`), null elsewhere. */
export function airlineCustomer(source: string, trajectory: Trajectory): string | null {
  return airlineCustomerOf(source, trajectory.task ?? null);
}

/** Whether a held-out item's customer also has a task on the training side (see `airlineCustomer`). */
export function customerInTraining(split: Split, item: SplitItem): boolean {
  return item.customer !== null && split.trainCustomers.has(item.customer);
}

export interface Split {
  rule: string;
  items: SplitItem[];
  heldOutTasks: string[];
  trainTasks: string[];
  /** Over the training trajectories only: held-out steps never see a held-out observation. */
  index: RetrievalIndex;
  /** External id → task, for the training trajectories (to leave a task's own trials out). */
  taskOfTrajectory: Map<string, string>;
  /** The airline customers of the training tasks (`airlineCustomer`). */
  trainCustomers: Set<string>;
}

export const SPLIT_RULE =
  'task split: a task (tau2 "tau2/<domain>/<taskId>", tau-bench "tau-bench-v1/airline/<taskId>", SWE-agent "swe-agent/<instance>") is held out when int(sha1(task), 16) % 5 == 0; every trial of a task is on one side';

/** `files`: data files relative to the data folder (models/sources.ts, or split.json's `files`). */
export async function loadSplit(files: readonly string[]): Promise<Split> {
  const items: SplitItem[] = [];
  for (const file of files) {
    const source = sourceLabel(file);
    for (const { key, task, trajectory } of await keyedTrajectories(file)) {
      items.push({
        key,
        task,
        source,
        heldOut: isHeldOutTask(task),
        trajectory,
        inputs: [...predictionInputs(trajectory)],
        customer: airlineCustomer(source, trajectory),
      });
    }
  }
  const train = items.filter((item) => !item.heldOut);
  const taskOfTrajectory = new Map(train.map((item) => [item.trajectory.externalId, item.task]));
  return {
    rule: SPLIT_RULE,
    items,
    heldOutTasks: [...new Set(items.filter((i) => i.heldOut).map((i) => i.task))].toSorted(),
    trainTasks: [...new Set(train.map((i) => i.task))].toSorted(),
    index: buildRetrievalIndex(train.map((item) => item.trajectory)),
    taskOfTrajectory,
    trainCustomers: new Set(
      train.flatMap((item) => (item.customer === null ? [] : [item.customer])),
    ),
  };
}

/** Candidates fetched so that, after a task's own trials are dropped, k remain. */
const CANDIDATES = 64;

/**
 * The recorded transitions a prompt shows for one step, with where they come from. Held-out steps:
 * the nearest training transitions (the training side holds none of their task). Training steps:
 * the nearest training transitions of other tasks, so training sees what evaluation and a new task
 * see, never a sibling trial's twin.
 */
export function neighborSources(
  split: Split,
  item: SplitItem,
  input: PredictionInput,
  k: number = PROMPT_NEIGHBORS,
): Neighbor[] {
  if (item.heldOut) return split.index.search(input.context, input.history, input.action, k);
  return split.index
    .search(input.context, input.history, input.action, CANDIDATES)
    .filter((neighbor) => split.taskOfTrajectory.get(neighbor.source.trajectory) !== item.task)
    .slice(0, k);
}

/** The neighbors of a prompt (see `neighborSources`); held-out steps through `promptNeighbors`, as at inference. */
export function neighborsFor(
  split: Split,
  item: SplitItem,
  input: PredictionInput,
  k: number = PROMPT_NEIGHBORS,
): PromptNeighbor[] {
  if (item.heldOut)
    return promptNeighbors(split.index, input.context, input.history, input.action, { k });
  return neighborSources(split, item, input, k).map((neighbor) => ({
    action: neighbor.action,
    observation: neighbor.observation.content,
  }));
}

/** The retrieval baseline's answer for a step: the first neighbor's observation, as createRetrievalWorldModel answers. */
export function retrievalAnswer(neighbors: readonly PromptNeighbor[]): string {
  return neighbors[0]?.observation ?? '';
}
