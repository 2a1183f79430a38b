import type { Store } from '@terrarium/db';
import { openMemoryStore } from '@terrarium/db/test-store';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { collectDataFiles, readDataFile } from '../import/collect-files';
import { importFiles } from '../import/import-files';
import { appRouter } from '../router';
import { TAU2_RETAIL } from '../testing/sample-files';
import { PROGRAM_PRINCIPAL } from '../trpc';

describe('datasets.delete', () => {
  let store: Store;
  beforeAll(async () => {
    store = await openMemoryStore();
    const paths = await collectDataFiles([TAU2_RETAIL]);
    // A file imported twice by mistake: the second import stores nothing again.
    for (const dataset of ['twice', 'twice', 'kept'])
      await importFiles(store, paths.map(readDataFile), { dataset });
  }, 120_000);
  afterAll(() => store.close());

  it('deletes one dataset whole, leaves the others, and is a researcher’s', async () => {
    const api = appRouter.createCaller({ store, principal: PROGRAM_PRINCIPAL });
    const before = await api.datasets.list();
    const twice = before.find((dataset) => dataset.name === 'twice');
    const kept = before.find((dataset) => dataset.name === 'kept');
    if (twice === undefined || kept === undefined) throw new Error('datasets not imported');
    expect(twice.trajectories).toBe(kept.trajectories);

    const labeler = appRouter.createCaller({
      store,
      principal: { kind: 'user', userId: '9', name: 'lena', role: 'labeler' },
    });
    await expect(labeler.datasets.delete({ datasetId: twice.id })).rejects.toMatchObject({
      code: 'FORBIDDEN',
    });

    expect(await api.datasets.delete({ datasetId: twice.id })).toEqual({
      deleted: 'twice',
      trajectories: twice.trajectories,
    });
    const after = await api.datasets.list();
    expect(after.map((dataset) => dataset.name)).toEqual(['kept']);
    expect(after[0]).toEqual(kept);
    expect(
      (await store.listTrajectories({ datasetId: twice.id }, { offset: 0, limit: 10 })).total,
    ).toBe(0);
    await expect(api.datasets.delete({ datasetId: twice.id })).rejects.toMatchObject({
      code: 'NOT_FOUND',
    });
  });

  it('refuses while an import into the dataset is queued', async () => {
    const api = appRouter.createCaller({ store, principal: PROGRAM_PRINCIPAL });
    const kept = (await api.datasets.list()).find((dataset) => dataset.name === 'kept');
    if (kept === undefined) throw new Error('no dataset kept');
    await store.createImportJob({ dataset: 'kept', format: null, files: [], ownsFiles: false });
    await expect(api.datasets.delete({ datasetId: kept.id })).rejects.toMatchObject({
      code: 'CONFLICT',
      message: 'an import into kept is still running: cancel it or let it finish first',
    });
    expect((await api.datasets.list()).map((dataset) => dataset.name)).toEqual(['kept']);
  });
});
