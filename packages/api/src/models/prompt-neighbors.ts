import type { Store } from '@terrarium/db';
import { promptNeighbors, type PromptNeighbor } from '@terrarium/inference';
import type { Action, Domain } from '@terrarium/schema';
import { leaveOut, predictionInputAt, type Transition } from '@terrarium/worlds';
import { findDataset } from '../simulate/find-trajectory';
import { loadTrajectory } from '../simulate/load-trajectories';
import { datasetRetrievalIndex } from '../simulate/resolve-simulator';
import { SimulatorError } from '../simulate/sim-spec';

/** The recorded transitions a prompt of the bundled model shows, and where they were looked up. */
export interface PromptNeighborsAnswer {
  dataset: { id: string; name: string };
  /** Transitions in the dataset's retrieval index. */
  indexed: number;
  /** Best first. */
  neighbors: PromptNeighbor[];
}

/**
 * The neighbors of a stored trajectory's step, from its own dataset with the trajectory and the
 * other trials of its task left out (as the retrieval simulator and the model's held-out split
 * leave them out): what the browser's
 * decoder puts in the prompt before it predicts that step.
 */
export async function neighborsOfStep(
  store: Store,
  trajectoryId: string,
  step: number,
  k?: number,
): Promise<PromptNeighborsAnswer> {
  const detail = await store.getTrajectory(trajectoryId);
  if (detail === null) {
    throw new SimulatorError('trajectoryId', `no trajectory "${trajectoryId}"`, 404);
  }
  const trajectory = await loadTrajectory(store, detail);
  const input = predictionInputAt(trajectory, step);
  if (input === null) {
    throw new SimulatorError(
      'step',
      `step ${step} of this trajectory is not an action with an observation`,
    );
  }
  const dataset = await findDataset(store, detail.datasetId);
  const index = await datasetRetrievalIndex(store, dataset.id);
  return {
    dataset: { id: dataset.id, name: dataset.name },
    indexed: index.size,
    neighbors: promptNeighbors(index, input.context, input.history, input.action, {
      ...leaveOut(trajectory.externalId, trajectory.task),
      ...(k === undefined ? {} : { k }),
    }),
  };
}

export interface FreeFormStep {
  domain: Domain;
  history: readonly Transition[];
  action: Action;
}

/** The neighbors of an action typed by the user (the Models playground), from a whole dataset. */
export async function neighborsOfAction(
  store: Store,
  datasetIdOrName: string,
  { domain, history, action }: FreeFormStep,
  k?: number,
): Promise<PromptNeighborsAnswer> {
  const dataset = await findDataset(store, datasetIdOrName);
  const index = await datasetRetrievalIndex(store, dataset.id);
  const context = { domain, task: null, systemPrompt: null, tools: [] };
  return {
    dataset: { id: dataset.id, name: dataset.name },
    indexed: index.size,
    neighbors: promptNeighbors(index, context, history, action, k === undefined ? {} : { k }),
  };
}
