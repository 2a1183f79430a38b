import type { Store } from '@terrarium/db';
import type { DatasetSummary, TrajectoryDetail } from '@terrarium/schema';
import { listDatasetTrajectories } from './load-trajectories';
import { SimulatorError } from './sim-spec';

/**
 * A dataset by id or name; a 404-style error naming `field` otherwise, with the names it could
 * be: the stored datasets', then `others` the caller takes too (a curriculum's `builtin`).
 */
export async function findDataset(
  store: Store,
  idOrName: string,
  field = 'dataset',
  others: readonly string[] = [],
): Promise<DatasetSummary> {
  const datasets = await store.listDatasets();
  const found =
    datasets.find((dataset) => dataset.id === idOrName) ??
    datasets.find((dataset) => dataset.name === idOrName);
  if (found === undefined) {
    const names = [...datasets.map((dataset) => dataset.name), ...others].join(', ') || 'none yet';
    throw new SimulatorError(field, `no dataset "${idOrName}" (datasets: ${names})`, 404);
  }
  return found;
}

/**
 * A trajectory of the dataset by store id or by the source's id (`externalId`); without one, the
 * dataset's first trajectory (in import order).
 */
export async function findTrajectory(
  store: Store,
  dataset: DatasetSummary,
  idOrExternalId?: string,
  field = 'trajectory',
): Promise<TrajectoryDetail> {
  const summaries = await listDatasetTrajectories(store, dataset.id);
  const summary =
    idOrExternalId === undefined
      ? summaries[0]
      : (summaries.find((candidate) => candidate.id === idOrExternalId) ??
        summaries.find((candidate) => candidate.externalId === idOrExternalId));
  const detail = summary === undefined ? null : await store.getTrajectory(summary.id);
  if (detail === null) {
    throw new SimulatorError(
      field,
      idOrExternalId === undefined
        ? `dataset "${dataset.name}" has no trajectories`
        : `no trajectory "${idOrExternalId}" in dataset "${dataset.name}"`,
      404,
    );
  }
  return detail;
}
