import type { Store } from '@terrarium/db';
import {
  readAllSteps,
  trajectoryFromDetail,
  type Trajectory,
  type TrajectoryDetail,
  type TrajectorySummary,
} from '@terrarium/schema';
import { MAX_STEP_WINDOW, MAX_TRAJECTORY_PAGE } from '../trajectories/router';

/**
 * A stored trajectory as the world models take it. The store has no bulk reader, so steps are read
 * window by window; the whole trajectory then sits in memory, which is what the backends need (a
 * retrieval index holds every transition of a dataset). Fine at demo scale (tens of MB); a dataset
 * of millions of transitions would need an index built in the database instead.
 */
export async function loadTrajectory(store: Store, detail: TrajectoryDetail): Promise<Trajectory> {
  const steps = await readAllSteps(
    (offset, limit) => store.getSteps(detail.id, offset, limit),
    MAX_STEP_WINDOW,
  );
  return trajectoryFromDetail(detail, steps);
}

/** Every trajectory summary of a dataset, in the store's order. */
export async function listDatasetTrajectories(
  store: Store,
  datasetId: string,
): Promise<TrajectorySummary[]> {
  const summaries: TrajectorySummary[] = [];
  for (let offset = 0; ; offset += MAX_TRAJECTORY_PAGE) {
    const page = await store.listTrajectories(
      { datasetId },
      { offset, limit: MAX_TRAJECTORY_PAGE },
    );
    summaries.push(...page.rows);
    if (page.rows.length === 0 || offset + MAX_TRAJECTORY_PAGE >= page.total) break;
  }
  return summaries;
}

/** Every trajectory of a dataset with its steps (see `loadTrajectory` on memory). */
export async function loadDataset(store: Store, datasetId: string): Promise<Trajectory[]> {
  return loadListed(store, await listDatasetTrajectories(store, datasetId));
}

/** The listed trajectories with their steps, named by store id (one deleted since is left out). */
export async function loadListed(
  store: Store,
  summaries: readonly TrajectorySummary[],
  /** Stops loading (what was loaded is returned) once aborted. */
  signal?: AbortSignal,
): Promise<Trajectory[]> {
  const trajectories: Trajectory[] = [];
  for (const summary of summaries) {
    if (signal?.aborted === true) break;
    const detail = await store.getTrajectory(summary.id);
    if (detail !== null) trajectories.push(await loadTrajectory(store, detail));
  }
  return trajectories;
}

/**
 * Every trajectory of a dataset named by its source id (`externalId` from the imported file), not
 * by its store id: what a bench is built from, so that its item ids, split, sampling and hash
 * depend on the content alone and not on import order or on which machine imported it.
 */
export async function loadDatasetBySourceIds(
  store: Store,
  datasetId: string,
): Promise<Trajectory[]> {
  const trajectories: Trajectory[] = [];
  for (const summary of await listDatasetTrajectories(store, datasetId)) {
    const detail = await store.getTrajectory(summary.id);
    if (detail === null) continue;
    trajectories.push({ ...(await loadTrajectory(store, detail)), externalId: detail.externalId });
  }
  return trajectories;
}
