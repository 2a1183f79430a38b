import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
import { Worker, type ResourceLimits } from 'node:worker_threads';

const BOOTSTRAP_URL = new URL('./ts-worker-bootstrap.mjs', import.meta.url);

/**
 * The module of a worker thread beside `base` (an `import.meta.url`): `name`.ts when the server
 * runs from TypeScript sources, `name`.js when built.
 */
export function workerModule(name: string, base: string): URL {
  return new URL(base.endsWith('.ts') ? `./${name}.ts` : `./${name}.js`, base);
}

/**
 * A worker thread running `entry`. Node 20 applies no `--import` loader to worker threads, so
 * when the entry is TypeScript the bootstrap registers tsx's ESM API first, then loads it.
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
