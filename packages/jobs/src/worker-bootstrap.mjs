// Entry of a worker thread. Node 20 does not apply `--import` loaders to worker threads, so when
// the process runs from TypeScript sources this registers tsx first, then loads the worker module.
import { workerData } from 'node:worker_threads';

const { entry, tsxApi } = workerData;
if (tsxApi) {
  const { register } = await import(tsxApi);
  register();
}
await import(entry);
