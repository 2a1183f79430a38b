import { readdir } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  buildBenchFromDatasets,
  collectDataFiles,
  importFiles,
  readDataFile,
  startRun,
  type BenchRunner,
} from '@terrarium/api';
import type { Store } from '@terrarium/db';
import type { BenchManifest, BenchRun, ImportReport } from '@terrarium/schema';

/** Real trajectories shipped with the repository, one dataset per subfolder (with its licence). */
export const DEFAULT_DEMO_DIR = fileURLToPath(new URL('../../../demo/data', import.meta.url));

/**
 * Imports every subfolder of `demoDir` as a dataset named after the folder, but only into a store
 * that has no datasets yet: a researcher's own data is never mixed with the demo.
 */
export async function loadDemoData(
  store: Store,
  demoDir: string = DEFAULT_DEMO_DIR,
): Promise<ImportReport[]> {
  if ((await store.listDatasets()).length > 0) return [];
  const entries = await readdir(demoDir, { withFileTypes: true });
  const folders = entries
    .filter((entry) => entry.isDirectory() && !entry.name.startsWith('.'))
    .map((entry) => entry.name)
    .toSorted();
  const reports: ImportReport[] = [];
  for (const folder of folders) {
    const files = await collectDataFiles([path.join(demoDir, folder)]);
    reports.push(await importFiles(store, files.map(readDataFile), { dataset: folder }));
  }
  return reports;
}

/** The bench the demo starts with, so the Benches page has a leaderboard to show. */
export const DEMO_BENCH = 'demo';
const DEMO_SIMS = ['replay', 'retrieval'];

/**
 * Freezes a bench from the freshly loaded demo datasets (AgentWorldBench sampling) and queues a
 * replay + retrieval run on it; the server's workers finish it in the background.
 */
export async function startDemoBench(
  store: Store,
  runner: BenchRunner,
  reports: readonly ImportReport[],
): Promise<{ bench: BenchManifest; run: BenchRun }> {
  const ctx = { store, benchRunner: runner };
  const bench = await buildBenchFromDatasets(ctx, {
    name: DEMO_BENCH,
    datasets: reports.map((report) => report.dataset),
    sampling: { kind: 'agentworld' },
    seed: 0,
    devFraction: 0,
  });
  const run = await startRun(ctx, {
    bench: bench.name,
    version: bench.version,
    sims: DEMO_SIMS,
    judge: null,
    mode: { kind: 'open' },
    split: 'test',
  });
  return { bench, run };
}
