/**
 * A process that runs one stored import job, for the kill -9 test (run with `node --import tsx`):
 *   import-child.ts DATA_DIR JOB_ID
 * Prints `stored N` (trajectories stored so far) after every group the store committed, and
 * `done STATUS` at the end.
 */
import { openStore } from '@terrarium/db';
import { runImportJob } from '../import/import-job';

const [dataDir, jobId] = process.argv.slice(2);
if (dataDir === undefined || jobId === undefined) throw new Error('usage: DATA_DIR JOB_ID');
const store = await openStore({ dataDir });
try {
  const outcome = await runImportJob(store, jobId, {
    onStored: (checkpoint) => process.stdout.write(`stored ${checkpoint.report.trajectories}\n`),
  });
  process.stdout.write(`done ${outcome.status}\n`);
} finally {
  await store.close();
}
