import type { JsonValue, Metadata } from '@terrarium/schema';

export interface ForkParent {
  datasetId: string;
  trajectoryId: string;
  externalId: string;
  /** 0-based index of the edited step. */
  step: number;
  sim: string;
}

function record(value: JsonValue | undefined): { [key: string]: JsonValue } | null {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? value : null;
}

function text(value: JsonValue | undefined): string | null {
  return typeof value === 'string' ? value : null;
}

/** The parent a "what if" fork records in `metadata.fork`, or null for any other trajectory. */
export function forkParentOf(metadata: Metadata): ForkParent | null {
  const fork = record(metadata['fork']);
  const dataset = record(fork?.['parentDataset']);
  const trajectory = record(fork?.['parentTrajectory']);
  const datasetId = text(dataset?.['id']);
  const trajectoryId = text(trajectory?.['id']);
  const step = fork?.['step'];
  const sim = text(fork?.['sim']);
  if (datasetId === null || trajectoryId === null || typeof step !== 'number' || sim === null) {
    return null;
  }
  return {
    datasetId,
    trajectoryId,
    externalId: text(trajectory?.['externalId']) ?? trajectoryId,
    step,
    sim,
  };
}

/** How a fork's step came about: the edited action, or an observation a simulator predicted. */
export function simulatedStepLabel(metadata: Metadata): string | null {
  if (metadata['edited'] === true) return 'edited action · simulated observation';
  if (metadata['simulated'] === true) return 'simulated observation';
  return null;
}
