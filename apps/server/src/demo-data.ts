import { readdir } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { collectDataFiles, importFiles, readDataFile } from '@terrarium/api';
import type { Store } from '@terrarium/db';
import type { ImportReport } from '@terrarium/schema';

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
