// Test support only: the real tau2 retail results in an in-memory store, bench workers on its job
// queue, and a bench built from them, as the bench services' tests start from.
import type { Store } from '@terrarium/db';
import { openMemoryStore } from '@terrarium/db/test-store';
import type { Pricing } from '@terrarium/worlds';
import { collectDataFiles, readDataFile } from '../import/collect-files';
import { importFiles } from '../import/import-files';
import { TAU2_RETAIL } from '../testing/sample-files';
import { PROGRAM_PRINCIPAL, type ApiContext } from '../trpc';
import { buildBenchFromDatasets } from './bench-service';
import { startBenchWorkers, type BenchWorkers } from './bench-workers';

export interface RetailBench {
  store: Store;
  workers: BenchWorkers;
  /** A program's context with the workers' runner. */
  ctx: ApiContext;
  close(): Promise<void>;
}

/** AgentWorldBench sampling over dataset `retail`, optionally capped per task stratum. */
export async function openRetailBench(options: {
  bench: string;
  concurrency: number;
  maxItemsPerTask?: number;
  /** Prices by simulator spec, as TERRARIUM_PRICING gives them to a server. */
  pricing?: ReadonlyMap<string, Pricing>;
}): Promise<RetailBench> {
  const store = await openMemoryStore();
  const files = (await collectDataFiles([TAU2_RETAIL])).map(readDataFile);
  await importFiles(store, files, { dataset: 'retail' });
  const workers = await startBenchWorkers(store, {
    concurrency: options.concurrency,
    queue: { schema: 'pgboss' },
    ...(options.pricing === undefined ? {} : { pricing: options.pricing }),
  });
  const ctx: ApiContext = { store, benchRunner: workers.runner, principal: PROGRAM_PRINCIPAL };
  await buildBenchFromDatasets(ctx, {
    name: options.bench,
    datasets: ['retail'],
    sampling: { kind: 'agentworld' },
    seed: 0,
    devFraction: 0,
    ...(options.maxItemsPerTask === undefined ? {} : { maxItemsPerTask: options.maxItemsPerTask }),
  });
  return {
    store,
    workers,
    ctx,
    async close() {
      await workers.stop();
      await store.close();
    },
  };
}
