/**
 * A `terrarium worker`-like process for the PostgreSQL test, run with `node --import tsx`:
 *   worker-child.ts DATABASE_URL BOSS_SCHEMA NAME DELAY_MS
 * It echoes each item's real observation after DELAY_MS, tags provenance with NAME, and prints
 * `ready`, then `start {chunk}` / `end {chunk}` lines. SIGTERM stops it gracefully.
 */
import { openStore } from '@terrarium/db';
import { createJobQueue } from '../job-queue';
import { startWorker } from '../worker';
import { EchoWorld, scoreWithRules } from './echo-world';

const [databaseUrl, schema, name, delay] = process.argv.slice(2);
if (!databaseUrl || !schema || !name)
  throw new Error('usage: worker-child.ts URL SCHEMA NAME DELAY_MS');
const delayMs = Number(delay ?? '0');

const store = await openStore({ databaseUrl });
const queue = await createJobQueue(store, {
  schema,
  chunkSize: 16,
  expireInSeconds: 3,
  maintenanceIntervalSeconds: 1,
  retryDelaySeconds: 0,
});
const worker = await startWorker({
  queue,
  concurrency: 2,
  pollingIntervalSeconds: 0.5,
  // Half a chunk in flight at most: a chunk is then recorded in two batches, and a kill can fall
  // between them (the test's point).
  limits: { replay: 8, retrieval: 8 },
  deps: {
    async simulatorFor(_run, sim, item) {
      return new EchoWorld(sim, [item], { delayMs, detail: { worker: name } });
    },
    score: scoreWithRules,
  },
  onChunkStart: (chunk) => process.stdout.write(`start ${JSON.stringify(chunk)}\n`),
  onChunk: (chunk, outcome) =>
    process.stdout.write(`end ${JSON.stringify({ ...chunk, ...outcome })}\n`),
});
process.stdout.write('ready\n');

process.on('SIGTERM', () => {
  void (async () => {
    await worker.stop();
    await queue.stop();
    await store.close();
    process.exit(0);
  })();
});
