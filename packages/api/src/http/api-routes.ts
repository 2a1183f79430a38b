import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Store } from '@terrarium/db';
import { createHTTPHandler } from '@trpc/server/adapters/standalone';
import type { BenchRunner } from '../bench/bench-service';
import { appRouter } from '../router';
import { TERRARIUM_VERSION } from '../version';
import { respondToImport } from './import-route';
import { respondToOpenAI } from './openai-routes';
import { respondToSimulate } from './simulate-route';
import { sendError, sendJson } from './json-response';
import { errorMessage } from '../import/import-files';

export interface HealthReport {
  ok: true;
  backend: Store['backend'];
  dataDir?: string;
  version: string;
}

export interface ApiHandlerOptions {
  store: Store;
  /** The embedded data folder being served, reported by /api/health. */
  dataDir?: string;
  benchRunner?: BenchRunner;
}

/**
 * Answers a request when it belongs to the API (`/trpc/…`, `/api/…`, the OpenAI-compatible `/v1/…`);
 * returns false otherwise.
 */
export type ApiRequestHandler = (request: IncomingMessage, response: ServerResponse) => boolean;

export function createApiRequestHandler({
  store,
  dataDir,
  benchRunner,
}: ApiHandlerOptions): ApiRequestHandler {
  const trpc = createHTTPHandler({
    router: appRouter,
    basePath: '/trpc/',
    createContext: () => ({ store, ...(benchRunner === undefined ? {} : { benchRunner }) }),
    onError({ error, path }) {
      if (error.code === 'INTERNAL_SERVER_ERROR') {
        console.error(`tRPC ${path ?? '?'} failed:`, error.cause ?? error);
      }
    },
  });

  return (request, response) => {
    const url = new URL(request.url ?? '/', 'http://localhost');
    if (url.pathname.startsWith('/trpc/')) {
      trpc(request, response);
      return true;
    }
    const openAI = url.pathname.startsWith('/v1/');
    if (!openAI && url.pathname !== '/api' && !url.pathname.startsWith('/api/')) return false;
    const answer = openAI
      ? respondToOpenAI(request, response, url, store)
      : respondToApi(request, response, url, { store, dataDir });
    answer.catch((error: unknown) => {
      console.error(`${request.method ?? '?'} ${url.pathname} failed:`, error);
      if (!response.headersSent) sendError(response, 500, errorMessage(error));
      else response.destroy();
    });
    return true;
  };
}

async function respondToApi(
  request: IncomingMessage,
  response: ServerResponse,
  url: URL,
  { store, dataDir }: ApiHandlerOptions,
): Promise<void> {
  if (url.pathname === '/api/import') return respondToImport(request, response, url, store);
  if (url.pathname === '/api/simulate') return respondToSimulate(request, response, store);
  if (request.method !== 'GET' && request.method !== 'HEAD') {
    request.resume();
    response.setHeader('allow', 'GET, HEAD');
    return sendError(response, 405, `${url.pathname} answers GET`);
  }
  switch (url.pathname) {
    case '/api/health': {
      const health: HealthReport = {
        ok: true,
        backend: store.backend,
        ...(dataDir === undefined ? {} : { dataDir }),
        version: TERRARIUM_VERSION,
      };
      return sendJson(response, 200, health);
    }
    case '/api/datasets':
      return sendJson(response, 200, await store.listDatasets());
    default:
      request.resume();
      return sendError(response, 404, `no API route ${url.pathname}`);
  }
}
