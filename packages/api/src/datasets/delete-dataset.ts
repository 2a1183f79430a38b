import type { Store } from '@terrarium/db';
import { TRPCError } from '@trpc/server';

export interface DeletedDataset {
  deleted: string;
  trajectories: number;
}

/**
 * Deletes a dataset with its trajectories, steps, search index and quarantined records (one
 * statement; the foreign keys cascade). Benches built from it keep their own frozen items, and
 * runs their scores. Refused while an import into it is queued or running, which would write
 * into what is being deleted.
 */
export async function deleteDataset(store: Store, datasetId: string): Promise<DeletedDataset> {
  const dataset = (await store.listDatasets()).find((found) => found.id === datasetId);
  if (dataset === undefined) {
    throw new TRPCError({ code: 'NOT_FOUND', message: `no dataset ${datasetId}` });
  }
  const importing = (await store.listImportJobs(200)).some(
    (job) => job.dataset === dataset.name && (job.status === 'queued' || job.status === 'running'),
  );
  if (importing) {
    throw new TRPCError({
      code: 'CONFLICT',
      message: `an import into ${dataset.name} is still running: cancel it or let it finish first`,
    });
  }
  await store.deleteDataset(dataset.id);
  return { deleted: dataset.name, trajectories: dataset.trajectories };
}
