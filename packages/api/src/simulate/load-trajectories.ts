import type { Store } from '@terrarium/db';
import type { Step, Trajectory, TrajectoryDetail, TrajectorySummary } from '@terrarium/schema';
import { MAX_STEP_WINDOW, MAX_TRAJECTORY_PAGE } from '../trajectories/router';

/**
 * A stored trajectory as the world models take it. The store has no bulk reader, so steps are read
 * window by window; the whole trajectory then sits in memory, which is what the backends need (a
 * retrieval index holds every transition of a dataset). Fine at demo scale (tens of MB); a dataset
 * of millions of transitions would need an index built in the database instead.
 */
export async function loadTrajectory(store: Store, detail: TrajectoryDetail): Promise<Trajectory> {
  const steps: Step[] = [];
  for (let offset = 0; ; offset += MAX_STEP_WINDOW) {
    const window = await store.getSteps(detail.id, offset, MAX_STEP_WINDOW);
    steps.push(...window.steps);
    if (window.steps.length === 0 || offset + MAX_STEP_WINDOW >= window.total) break;
  }
  return {
    // The store id, not the source's: provenance then names a trajectory the UI can open.
    externalId: detail.id,
    sourceFormat: detail.sourceFormat,
    sourceBenchmark: detail.sourceBenchmark,
    domain: detail.domain,
    task: detail.task,
    systemPrompt: detail.systemPrompt,
    tools: detail.tools,
    toolsInferred: detail.toolsInferred,
    agentModel: detail.agentModel,
    outcome: detail.outcome,
    steps,
    metadata: detail.metadata,
    // The source record is only needed for export; simulation never reads it.
    source: { file: detail.sourceFile, line: null, record: null },
  };
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
  const trajectories: Trajectory[] = [];
  for (const summary of await listDatasetTrajectories(store, datasetId)) {
    const detail = await store.getTrajectory(summary.id);
    if (detail !== null) trajectories.push(await loadTrajectory(store, detail));
  }
  return trajectories;
}
