import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { createApiRequestHandler, type BenchRunner } from '@terrarium/api';
import type { Store } from '@terrarium/db';
import { setSecurityHeaders } from './security-headers';
import { serveWebApp } from './static-files';

export const DEFAULT_HOST = '127.0.0.1';
export const DEFAULT_WEB_DIST = fileURLToPath(new URL('../../web/dist', import.meta.url));
// In-flight requests (an upload, say) get this long to finish when the server closes.
const CLOSE_GRACE_MS = 3000;

export interface ServerOptions {
  store: Store;
  host?: string;
  /** 0 or absent: a free port chosen by the system. */
  port?: number;
  /** The built web app (apps/web/dist by default). */
  webDist?: string;
  /** The embedded data folder being served, for /api/health. */
  dataDir?: string;
  /** Where bench runs go; without one the server refuses to start them. */
  benchRunner?: BenchRunner;
}

export interface RunningServer {
  url: string;
  /** Stops accepting connections and resolves once the open ones have ended. */
  close(): Promise<void>;
}

/** tRPC at /trpc, the plain HTTP API at /api, and the web app everywhere else. */
export async function startServer({
  store,
  host = DEFAULT_HOST,
  port = 0,
  webDist = DEFAULT_WEB_DIST,
  dataDir,
  benchRunner,
}: ServerOptions): Promise<RunningServer> {
  const answerApi = createApiRequestHandler({
    store,
    dataDir,
    ...(benchRunner === undefined ? {} : { benchRunner }),
  });
  const server = createServer((request, response) => {
    setSecurityHeaders(response);
    if (answerApi(request, response)) return;
    serveWebApp(request, response, webDist).catch((error: unknown) => {
      console.error(`GET ${request.url ?? '?'} failed:`, error);
      if (response.headersSent) response.destroy();
      else {
        response.writeHead(500, { 'content-type': 'text/plain; charset=utf-8' });
        response.end('internal error\n');
      }
    });
  });

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const address = server.address();
  if (address === null || typeof address === 'string') {
    throw new Error('the server did not bind a TCP port');
  }
  return {
    url: `http://${urlHost(address)}:${address.port}`,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.close((error) => (error ? reject(error) : resolve()));
        server.closeIdleConnections();
        setTimeout(() => server.closeAllConnections(), CLOSE_GRACE_MS).unref();
      }),
  };
}

function urlHost(address: AddressInfo): string {
  return address.family === 'IPv6' ? `[${address.address}]` : address.address;
}
