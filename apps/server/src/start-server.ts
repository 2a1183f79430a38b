import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { isIP, type AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import {
  createApiRequestHandler,
  type BenchRunner,
  type CurriculumJobs,
  type ImportJobs,
  type PromptFolder,
} from '@terrarium/api';
import type { Store } from '@terrarium/db';
import { MODEL_URL_PREFIX } from '@terrarium/schema';
import { boundHostNames, isLoopbackAddress, isWildcardAddress } from './bind-address';
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
  /** Where curriculum runs go; without one the server refuses to start them. */
  curriculumJobs?: CurriculumJobs;
  /** Where imports go; without one an upload is imported inside its request. */
  importJobs?: ImportJobs;
  /** Where uploads wait for their import (the data folder's `imports` when serving one). */
  spoolDir?: string;
  /** The program token (`Authorization: Bearer <token>`); see program-token.ts for the default. */
  token: string;
  /** More names the Host header may carry (`--allowed-host`), e.g. a reverse proxy's. */
  allowedHosts?: readonly string[];
  /** `serve --prompts DIR`: /v1 and simulate speak the official protocol to `openai:` endpoints. */
  prompts?: PromptFolder | null;
  /** Called once per answered request (an access log; tests read what the server itself answered). */
  onAnswered?: (answer: AnsweredRequest) => void;
}

export interface AnsweredRequest {
  method: string;
  /** The path without the query (a query may carry a token). */
  path: string;
  status: number;
}

export interface RunningServer {
  /** Where this machine reaches it (loopback for a wildcard bind). */
  url: string;
  /** For a wildcard bind, where other machines reach it: one URL per address of this machine. */
  otherUrls: string[];
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
  curriculumJobs,
  importJobs,
  spoolDir,
  token,
  allowedHosts = [],
  prompts = null,
  onAnswered,
}: ServerOptions): Promise<RunningServer> {
  const loopback = isLoopbackAddress(host);
  const answerApi = createApiRequestHandler({
    store,
    dataDir,
    token,
    loopback,
    allowedHosts: [...boundHostNames(host), ...allowedHosts],
    ...(benchRunner === undefined ? {} : { benchRunner }),
    ...(curriculumJobs === undefined ? {} : { curriculumJobs }),
    ...(importJobs === undefined ? {} : { importJobs }),
    ...(spoolDir === undefined ? {} : { spoolDir }),
    prompts,
  });
  /** Model files go to signed-in callers only; true when the response was a refusal. */
  const refuseAnonymous = async (request: IncomingMessage, response: ServerResponse) => {
    if (await answerApi.signedIn(request)) return false;
    response.writeHead(401, { 'content-type': 'text/plain; charset=utf-8' });
    response.end('log in (or send the program token) to fetch model files\n');
    return true;
  };
  const server = createServer((request, response) => {
    if (onAnswered !== undefined) {
      response.once('finish', () => {
        const path = new URL(request.url ?? '/', 'http://localhost').pathname;
        onAnswered({ method: request.method ?? '?', path, status: response.statusCode });
      });
    }
    setSecurityHeaders(response);
    if (answerApi(request, response)) return;
    // Model files first: a request for one that looks like a page load (`Accept: text/html`, a
    // link opened) was served to anyone (walk 42).
    const opened = isModelFileRequest(request)
      ? refuseAnonymous(request, response)
      : isPageLoad(request)
        ? answerApi.openPage(request, response)
        : Promise.resolve(false);
    opened
      .then((answered) => (answered ? undefined : serveWebApp(request, response, webDist)))
      .catch((error: unknown) => {
        // A browser that leaves in the middle of a file (a reload, another page) is not a failure.
        if (isPrematureClose(error)) return;
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
    otherUrls: isWildcardAddress(host) ? otherMachinesUrls(host, address.port) : [],
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.close((error) => (error ? reject(error) : resolve()));
        server.closeIdleConnections();
        setTimeout(() => server.closeAllConnections(), CLOSE_GRACE_MS).unref();
      }),
  };
}

/**
 * Where other machines reach a wildcard bind: this machine's addresses, of the family it listens
 * on (0.0.0.0 takes IPv4 alone; :: takes both), without loopback and link-local ones (those need
 * a zone a URL cannot carry).
 */
export function otherMachinesUrls(host: string, port: number): string[] {
  const ipv4Only = host.replace(/^\[|\]$/g, '') === '0.0.0.0';
  return boundHostNames(host)
    .filter((name) => isIP(name) !== 0 && !isLoopbackAddress(name))
    .filter((name) => !(ipv4Only && isIP(name) === 6) && !name.toLowerCase().startsWith('fe80:'))
    .map((name) => `http://${isIP(name) === 6 ? `[${name}]` : name}:${port}`);
}

function isModelFileRequest(request: IncomingMessage): boolean {
  return new URL(request.url ?? '/', 'http://localhost').pathname.startsWith(MODEL_URL_PREFIX);
}

/** A navigation to one of the app's pages (not an asset, not a frame): where a session starts. */
function isPageLoad(request: IncomingMessage): boolean {
  if (request.method !== 'GET') return false;
  const dest = request.headers['sec-fetch-dest'];
  if (dest !== undefined) return dest === 'document';
  return (request.headers.accept ?? '').includes('text/html');
}

/**
 * The address to reach the server by from this machine. A wildcard bind (0.0.0.0, ::) is no
 * address to connect to: its URL names loopback, which it answers for, so the CLI reaches it.
 */
function urlHost(address: AddressInfo): string {
  if (isWildcardAddress(address.address)) return address.family === 'IPv6' ? '[::1]' : '127.0.0.1';
  return address.family === 'IPv6' ? `[${address.address}]` : address.address;
}

function isPrematureClose(error: unknown): boolean {
  return error instanceof Error && 'code' in error && error.code === 'ERR_STREAM_PREMATURE_CLOSE';
}
