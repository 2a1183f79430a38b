import { createDecodeClient, endpointOfWorker, type DecodeClient } from '@terrarium/inference/web';

let client: DecodeClient | null = null;

/**
 * The page's one decoding worker, started on first use. One worker for every model: a served model
 * loaded once stays loaded for the Models page and Compare alike.
 */
export function decodeWorkerClient(): DecodeClient {
  // Vite bundles the worker from this exact `new Worker(new URL(…), { type: 'module' })` form.
  client ??= createDecodeClient(
    endpointOfWorker(
      new Worker(new URL('./decode.worker.ts', import.meta.url), {
        type: 'module',
        name: 'terrarium-decode',
      }),
    ),
  );
  return client;
}
