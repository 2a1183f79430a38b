import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
import { Worker, type ResourceLimits } from 'node:worker_threads';

const BOOTSTRAP_URL = new URL('./worker-bootstrap.mjs', import.meta.url);

/**
 * A worker thread running `entry` (a module URL). When the process runs from TypeScript sources
 * (`.ts` entry), the bootstrap registers tsx in the thread first, since Node 20 gives worker
 * threads none of the process's `--import` loaders.
 */
export function startWorkerThread(entry: URL, resourceLimits?: ResourceLimits): Worker {
  let tsxApi: string | null = null;
  if (entry.pathname.endsWith('.ts')) {
    const loader = createRequire(import.meta.url).resolve('tsx');
    // `tsx` resolves to dist/loader.mjs; its registration API sits beside it.
    tsxApi = new URL('./esm/api/index.mjs', pathToFileURL(loader)).href;
  }
  return new Worker(BOOTSTRAP_URL, {
    workerData: { entry: entry.href, tsxApi },
    ...(resourceLimits === undefined ? {} : { resourceLimits }),
  });
}

/** `./name.ts` beside `base` when running from sources, `./name.js` when built. */
export function siblingModule(base: string, name: string): URL {
  return new URL(base.endsWith('.ts') ? `./${name}.ts` : `./${name}.js`, base);
}
