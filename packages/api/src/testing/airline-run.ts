import type { Store } from '@terrarium/db';
import { buildBenchFromDatasets, startRun, watchRun } from '../bench/bench-service';
import { startBenchWorkers, type BenchWorkers } from '../bench/bench-workers';
import { collectDataFiles, readDataFile } from '../import/collect-files';
import { importFiles } from '../import/import-files';
import { PROGRAM_PRINCIPAL } from '../trpc';
import { TAU2_AIRLINE } from './sample-files';

/**
 * The shipped tau2 airline file imported as dataset `airline`, built into bench `airline`
 * (AgentWorldBench sampling, seed 0) and run open-loop on its test split with `sims` to the end,
 * through the job queue as a server runs it. The caller stops the workers.
 */
export async function finishedAirlineRun(
  store: Store,
  sims: readonly string[],
): Promise<{ workers: BenchWorkers; runId: string }> {
  const files = (await collectDataFiles([TAU2_AIRLINE])).map(readDataFile);
  await importFiles(store, files, { dataset: 'airline' });
  const workers = await startBenchWorkers(store, { concurrency: 2, queue: { schema: 'pgboss' } });
  const ctx = { store, benchRunner: workers.runner, principal: PROGRAM_PRINCIPAL };
  await buildBenchFromDatasets(ctx, {
    name: 'airline',
    datasets: ['airline'],
    sampling: { kind: 'agentworld' },
    seed: 0,
    devFraction: 0,
  });
  const started = await startRun(ctx, {
    bench: 'airline',
    sims: [...sims],
    judge: null,
    mode: { kind: 'open' },
    split: 'test',
  });
  let runId = started.id;
  for await (const run of watchRun(ctx, started.id, undefined)) runId = run.id;
  return { workers, runId };
}
