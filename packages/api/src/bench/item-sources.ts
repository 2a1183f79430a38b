import type { Store } from '@terrarium/db';
import type { BenchItem, CellItem, TrajectorySummary } from '@terrarium/schema';

type SourceIds = Pick<TrajectorySummary, 'taskId' | 'trial'>;
type ItemOrigin = BenchItem['origin'];

/**
 * Each item's trajectory as `CellItem['trajectory']` says it, in the items' order: its source id
 * with the task id and trial its dataset records for it (null when the dataset is gone or no
 * longer holds it: the source id alone still names it), null for an item from a bench file. A page
 * of items costs one indexed lookup per dataset (by source id), not a listing of the dataset.
 */
export async function itemTrajectories(
  store: Store,
  origins: readonly ItemOrigin[],
): Promise<CellItem['trajectory'][]> {
  const wanted = new Map<string, Set<string>>();
  for (const { dataset, trajectory } of origins) {
    if (dataset === null || trajectory === null) continue;
    const ids = wanted.get(dataset) ?? new Set<string>();
    ids.add(trajectory);
    wanted.set(dataset, ids);
  }
  const byDataset = new Map<string, Map<string, SourceIds>>();
  for (const [name, ids] of wanted) {
    const dataset = await store.getDatasetByName(name);
    if (dataset === null) continue;
    const found = new Map<string, SourceIds>();
    const externalIds = [...ids];
    // A page of a cell is at most a few hundred items; the filter takes 500 ids at a time, and
    // a page of rows has room for each id twice (a dataset may hold one source id in two files).
    for (let at = 0; at < externalIds.length; at += 500) {
      const slice = externalIds.slice(at, at + 500);
      const page = await store.listTrajectories(
        { datasetId: dataset.id, externalIds: slice },
        { offset: 0, limit: 1000 },
      );
      // A dataset may hold one source id twice (two files): the first stored names it.
      for (const row of page.rows)
        if (!found.has(row.externalId))
          found.set(row.externalId, { taskId: row.taskId, trial: row.trial });
    }
    byDataset.set(name, found);
  }
  return origins.map(({ dataset, trajectory }) => {
    if (trajectory === null) return null;
    const ids = dataset === null ? undefined : byDataset.get(dataset)?.get(trajectory);
    return { externalId: trajectory, taskId: ids?.taskId ?? null, trial: ids?.trial ?? null };
  });
}
