import type { Store } from '@terrarium/db';
import { openMemoryStore } from '@terrarium/db/test-store';
import { TRPCError } from '@trpc/server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { collectDataFiles, readDataFile } from './import/collect-files';
import { importFiles } from './import/import-files';
import { appRouter } from './router';
import { PROGRAM_PRINCIPAL } from './trpc';
import { JSONL_WITH_ONE_BAD_LINE, TAU2_RETAIL, textFile } from './testing/sample-files';

describe('appRouter', () => {
  let store: Store;
  let api: ReturnType<typeof appRouter.createCaller>;
  beforeAll(async () => {
    store = await openMemoryStore();
    const files = (await collectDataFiles([TAU2_RETAIL])).map(readDataFile);
    await importFiles(store, [...files, textFile('chat.jsonl', JSONL_WITH_ONE_BAD_LINE)], {
      dataset: 'retail',
    });
    api = appRouter.createCaller({ store, principal: PROGRAM_PRINCIPAL });
  }, 120_000);
  afterAll(async () => {
    await store.close();
  });

  it('lists datasets and their quarantined records', async () => {
    const datasets = await api.datasets.list();
    expect(datasets.map((dataset) => [dataset.name, dataset.trajectories])).toEqual([
      ['retail', 42],
    ]);
    const quarantined = await api.datasets.quarantine({ datasetId: datasets[0]?.id ?? '' });
    expect(quarantined.map((record) => `${record.file}:${record.line}`)).toEqual(['chat.jsonl:2']);
  });

  it('pages and filters trajectories, then opens one in step windows', async () => {
    const page = await api.trajectories.list({
      filter: { sourceFormat: 'tau2-bench' },
      offset: 10,
      limit: 5,
    });
    expect(page.total).toBe(40);
    expect(page.rows).toHaveLength(5);
    const first = page.rows[0];
    if (!first) throw new Error('no row');

    const detail = await api.trajectories.get({ trajectoryId: first.id });
    expect(detail.externalId).toBe(first.externalId);
    const markers = await api.trajectories.markers({ trajectoryId: first.id });
    expect(markers).toHaveLength(detail.stepCount);
    const window = await api.trajectories.steps({ trajectoryId: first.id, offset: 1, limit: 2 });
    expect(window.total).toBe(detail.stepCount);
    expect(window.steps.map((step) => step.index)).toEqual([1, 2]);
  });

  it('answers NOT_FOUND for an unknown trajectory', async () => {
    const missing = api.trajectories.get({ trajectoryId: 'no-such-trajectory' });
    await expect(missing).rejects.toBeInstanceOf(TRPCError);
    await expect(missing).rejects.toMatchObject({ code: 'NOT_FOUND' });
  });

  it('names the field of a bad input', async () => {
    await expect(
      api.trajectories.steps({ trajectoryId: 'x', offset: 0, limit: 201 }),
    ).rejects.toMatchObject({ code: 'BAD_REQUEST' });
    await expect(
      api.trajectories.list({ filter: { minSteps: -1 }, offset: 0, limit: 10 }),
    ).rejects.toThrow(/minSteps/);
    // Beyond what a stored step count can be: the client's mistake, not the server's error.
    const huge = api.trajectories.list({
      filter: { minSteps: 99_999_999_999 },
      offset: 0,
      limit: 10,
    });
    await expect(huge).rejects.toMatchObject({ code: 'BAD_REQUEST' });
    await expect(huge).rejects.toThrow(/minSteps/);
  });
});
