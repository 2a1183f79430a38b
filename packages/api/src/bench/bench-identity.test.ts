import type { Store } from '@terrarium/db';
import { openMemoryStore } from '@terrarium/db/test-store';
import type { BenchItem, BenchManifest } from '@terrarium/schema';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { collectDataFiles, readDataFile } from '../import/collect-files';
import { importFiles } from '../import/import-files';
import { TAU2_AIRLINE, TAU2_RETAIL, TAU_BENCH_AIRLINE } from '../testing/sample-files';
import { buildBenchFromDatasets, listBenches, requireBench } from './bench-service';
import { allBenchItems } from './read-all';

async function importAs(store: Store, file: string, dataset: string): Promise<void> {
  await importFiles(store, (await collectDataFiles([file])).map(readDataFile), { dataset });
}

async function build(store: Store): Promise<{ manifest: BenchManifest; items: BenchItem[] }> {
  const manifest = await buildBenchFromDatasets(
    { store },
    {
      name: 'identity',
      datasets: ['retail', 'airline'],
      sampling: { kind: 'random', count: 3 },
      seed: 7,
      devFraction: 0.3,
    },
  );
  const bench = await requireBench(store, 'identity');
  return { manifest, items: await allBenchItems(store, { benchId: bench.id }) };
}

describe('bench identity depends on the content only (real tau2 retail and airline)', () => {
  const stores: Store[] = [];
  let first: Awaited<ReturnType<typeof build>>;
  let second: Awaited<ReturnType<typeof build>>;
  beforeAll(async () => {
    const a = await openMemoryStore();
    const b = await openMemoryStore();
    stores.push(a, b);
    await importAs(a, TAU2_RETAIL, 'retail');
    await importAs(a, TAU2_AIRLINE, 'airline');
    // The other store imports in the other order, after an unrelated dataset: every row id moves.
    await importAs(b, TAU_BENCH_AIRLINE, 'unrelated');
    await importAs(b, TAU2_AIRLINE, 'airline');
    await importAs(b, TAU2_RETAIL, 'retail');
    first = await build(a);
    second = await build(b);
  }, 180_000);
  afterAll(async () => {
    for (const store of stores) await store.close();
  });

  it('gives the same item ids in the same order, the same split and the same hash', () => {
    expect(first.items.length).toBe(first.manifest.itemCount);
    expect(first.manifest.itemCount).toBe(second.manifest.itemCount);
    expect(second.items.map((item) => item.id)).toEqual(first.items.map((item) => item.id));
    expect(second.items.map((item) => item.split)).toEqual(first.items.map((item) => item.split));
    expect(second.manifest.contentHash).toBe(first.manifest.contentHash);
    expect(second.manifest.byTask).toEqual(first.manifest.byTask);
  });

  it('lists each split’s size, which is what a run of that split scores', async () => {
    const store = stores[0];
    if (store === undefined) throw new Error('no store');
    const [listed] = await listBenches({ store });
    const dev = first.items.filter((item) => item.split === 'dev').length;
    expect(dev).toBeGreaterThan(0);
    expect(listed?.splits).toEqual({ test: first.manifest.itemCount - dev, dev });
  });

  it('samples the same turns and names origins by dataset name and source id', () => {
    expect(second.items.map((item) => item.origin)).toEqual(first.items.map((item) => item.origin));
    expect(second.items.map((item) => item.turnIndex)).toEqual(
      first.items.map((item) => item.turnIndex),
    );
    expect(new Set(first.items.map((item) => item.origin.dataset))).toEqual(
      new Set(['retail', 'airline']),
    );
    // Both splits are used, so the test would see a split that moved.
    expect(new Set(first.items.map((item) => item.split))).toEqual(new Set(['dev', 'test']));
  });
});
