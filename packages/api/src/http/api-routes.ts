import type { CurriculumJobs, ImportJobs } from '@terrarium/jobs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Store } from '@terrarium/db';
import { createHTTPHandler } from '@trpc/server/adapters/standalone';
import type { BenchRunner } from '../bench/bench-service';
import { appRouter } from '../router';
import { TERRARIUM_VERSION } from '../version';
import { respondToImport } from './import-route';
import {
  BENCH_IMPORT_PATH,
  MAX_BENCH_UPLOAD_BYTES,
  respondToBenchImport,
} from './bench-import-route';
import { RUN_RESULTS_PATH } from '@terrarium/schema';
import { isOpenAIPath, respondToOpenAI, sendOpenAIError } from './openai-routes';
import { createDefaultEnvService, isEnvPath, respondToEnv } from './env-routes';
import type { EnvService } from '@terrarium/curriculum';
import type { PromptFolder } from '@terrarium/worlds';
import { isRewardPath, respondToReward } from './reward-routes';
import { createDefaultRewardService } from '../rulesets/default-reward-service';
import type { RewardService } from '../rulesets/reward-service';
import { respondToSimulate } from './simulate-route';
import { respondToRunResults } from './run-results-route';
import { sendError, sendJson } from './json-response';
import { sessionProof } from '../auth/sessions';
import {
  ANONYMOUS_PRINCIPAL,
  INTERNAL_ERROR_MESSAGE,
  type ApiContext,
  type Principal,
  isResearcher,
} from '../trpc';
import { setCookie } from './cookies';
import { MAX_JSON_BODY_BYTES } from './read-json-body';
import { cookieNameOf, createRequestGate } from './request-gate';
import { refusal, routeAccess } from './route-policy';
import { createLoginLimiter } from '../auth/login-limiter';

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
  curriculumJobs?: CurriculumJobs;
  /** Imports as jobs (`/api/import`, the `imports` procedures); without it uploads run in place. */
  importJobs?: ImportJobs;
  /** Where uploads wait for their import job: the data folder's `imports` (default: OS temp). */
  spoolDir?: string;
  /** The program token: every non-browser request sends `Authorization: Bearer <token>`. */
  token: string;
  /** Host names (no port) the Host header may name, e.g. the bound address and `--allowed-host`s. */
  allowedHosts?: readonly string[];
  /**
   * Bound to loopback only: the loopback names are accepted as Host and, while no account exists,
   * pages get a local-owner session. Never set it for other binds.
   */
  loopback?: boolean;
  /** JSON body limit of tRPC, /api and /v1 (default MAX_REQUEST_BODY_BYTES; tests lower it). */
  maxBodyBytes?: number;
  /** The environment server behind `/v1/envs…` (default: the builtin worlds and tasks). */
  env?: EnvService;
  /** The reward service behind `/v1/reward…` (default: judge and sandbox from the environment). */
  rewards?: RewardService;
  /** `serve --prompts DIR`: `openai:` simulators behind /v1 and simulate speak the official protocol. */
  prompts?: PromptFolder | null;
}

/** One limit on JSON bodies for every transport (tRPC, /api, /v1); uploads have their own. */
export const MAX_REQUEST_BODY_BYTES = MAX_JSON_BODY_BYTES;
/** `POST /api/import` streams; this only bounds what one upload may declare. */
export const MAX_UPLOAD_BYTES = 64 * 1024 * 1024 * 1024;
/**
 * What a caller who is not signed in may send to tRPC: its public procedures (who am I, log in or
 * out) take a few hundred bytes, a batch of them a few kilobytes.
 */
export const MAX_ANONYMOUS_BODY_BYTES = 64 * 1024;

/** A body whose declared length is within the anonymous limit (a GET or HEAD has none). */
function withinAnonymousLimit(request: IncomingMessage): boolean {
  if (request.method === 'GET' || request.method === 'HEAD') return true;
  const length = request.headers['content-length'];
  // No length and no chunks: no body at all. A chunked one could be any size (a browser's fetch
  // always declares its length).
  if (length === undefined) return request.headers['transfer-encoding'] === undefined;
  const declared = Number(length);
  return Number.isFinite(declared) && declared <= MAX_ANONYMOUS_BODY_BYTES;
}

/**
 * Answers a request when it belongs to the API (`/trpc/…`, `/api/…`, the OpenAI-compatible `/v1/…`)
 * or must be refused (wrong Host, for any path); returns false for the web app's own paths, which
 * the caller serves after `openPage`.
 */
export interface ApiRequestHandler {
  (request: IncomingMessage, response: ServerResponse): boolean;
  /**
   * Before serving a page: takes the local owner's link (`?token=`) when there is one, answering
   * with a redirect (true); false when the caller serves the page.
   */
  openPage(request: IncomingMessage, response: ServerResponse): Promise<boolean>;
  /**
   * Whether the request comes from someone signed in (a session, or the program token), for files
   * the server hands only to them (model folders: `onnx:` specs may name private ones).
   */
  signedIn(request: IncomingMessage): Promise<boolean>;
}

export function createApiRequestHandler({
  store,
  dataDir,
  benchRunner,
  curriculumJobs,
  importJobs,
  spoolDir,
  token,
  allowedHosts = [],
  loopback = false,
  maxBodyBytes = MAX_REQUEST_BODY_BYTES,
  env,
  rewards = createDefaultRewardService(store),
  prompts = null,
}: ApiHandlerOptions): ApiRequestHandler {
  const gate = createRequestGate({ store, token, allowedHosts, localOwner: loopback });
  const logins = createLoginLimiter();
  // Tasks and built worlds persist in the store the handler serves.
  const envService = env ?? createDefaultEnvService(undefined, store);
  // The gate's verdict for each tRPC request, read by createContext (which sees only req/res).
  const principals = new WeakMap<
    IncomingMessage,
    { principal: Principal; session: string | null }
  >();
  const trpc = createHTTPHandler({
    router: appRouter,
    basePath: '/trpc/',
    maxBodySize: maxBodyBytes,
    // The UI sends a query whose input is too long for a URL as a POST; the gate holds a POST to
    // the stricter rules (its Origin checked), so reads gain no way around it.
    allowMethodOverride: true,
    createContext: ({ req, res }): ApiContext => {
      const admitted = principals.get(req);
      return {
        store,
        ...(benchRunner === undefined ? {} : { benchRunner }),
        ...(curriculumJobs === undefined ? {} : { curriculumJobs }),
        ...(importJobs === undefined ? {} : { importJobs }),
        prompts,
        principal: admitted?.principal ?? ANONYMOUS_PRINCIPAL,
        logins,
        ownerLink: loopback,
        clientAddress: req.socket.remoteAddress ?? 'unknown',
        setHeader: (name, value) => res.setHeader(name, value),
        maxBodyBytes,
        downloadLinks: gate.downloadLinks,
        cookies: {
          current: admitted?.session ?? null,
          set: (value, expiresAt) => {
            setCookie(res, cookieNameOf(req), value, expiresAt);
            return sessionProof(token, value);
          },
          clear: () => setCookie(res, cookieNameOf(req), '', null),
        },
      };
    },
    onError({ error, path }) {
      if (error.code === 'INTERNAL_SERVER_ERROR') {
        console.error(`tRPC ${path ?? '?'} failed:`, error.cause ?? error);
      }
    },
  });

  const handler = (request: IncomingMessage, response: ServerResponse): boolean => {
    const url = new URL(request.url ?? '/', 'http://localhost');
    // OpenAI clients read `error.type` and `error.param`, so refusals there come in their shape.
    const refuse = isOpenAIPath(url.pathname) ? sendOpenAIError : sendError;
    const badHost = gate.checkHost(request);
    if (badHost && !badHost.ok) {
      request.resume();
      refuse(response, badHost.status, badHost.message);
      return true;
    }
    const isTrpc = url.pathname.startsWith('/trpc/');
    const openAI = url.pathname.startsWith('/v1/');
    if (!isTrpc && !openAI && url.pathname !== '/api' && !url.pathname.startsWith('/api/')) {
      return false;
    }
    const answer = (async () => {
      const admission = await gate.admit(request);
      if (!admission.ok) {
        request.resume();
        return refuse(response, admission.status, admission.message);
      }
      if (isTrpc && admission.principal.kind === 'anonymous' && !withinAnonymousLimit(request)) {
        // Read and parsed before any procedure checks its caller: a stranger's 64 MB bodies
        // held the server's memory (walk 41: +390 MB for three logins that could never succeed).
        request.resume();
        return refuse(
          response,
          413,
          `a caller who is not signed in may send at most ${MAX_ANONYMOUS_BODY_BYTES} bytes`,
        );
      }
      if (isTrpc) {
        principals.set(request, {
          principal: admission.principal,
          session: admission.sessionToken,
        });
        return trpc(request, response);
      }
      const refused = refusal(routeAccess(url.pathname), admission.principal, url.pathname);
      if (refused) {
        request.resume();
        return refuse(response, refused.status, refused.message);
      }
      const declared = Number(request.headers['content-length']);
      const limit =
        url.pathname === '/api/import'
          ? MAX_UPLOAD_BYTES
          : url.pathname === BENCH_IMPORT_PATH
            ? MAX_BENCH_UPLOAD_BYTES
            : maxBodyBytes;
      if (Number.isFinite(declared) && declared > limit) {
        request.resume();
        return refuse(response, 413, `the request body exceeds ${limit} bytes`);
      }
      if (isEnvPath(url.pathname)) {
        return respondToEnv(request, response, url, envService, store, maxBodyBytes);
      }
      if (isRewardPath(url.pathname)) return respondToReward(request, response, url, rewards);
      return openAI
        ? respondToOpenAI(request, response, url, store, prompts)
        : respondToApi(request, response, url, {
            store,
            prompts,
            ...(importJobs === undefined ? {} : { importJobs }),
            ...(spoolDir === undefined ? {} : { spoolDir }),
            // Where the data lives is nobody else's business: only callers who may read it learn it.
            dataDir: isResearcher(admission.principal) ? dataDir : undefined,
          });
    })();
    answer.catch((error: unknown) => {
      console.error(`${request.method ?? '?'} ${url.pathname} failed:`, error);
      if (!response.headersSent) refuse(response, 500, INTERNAL_ERROR_MESSAGE);
      else response.destroy();
    });
    return true;
  };
  return Object.assign(handler, {
    openPage: (request: IncomingMessage, response: ServerResponse) =>
      gate.offerLocalOwnerSession(request, response),
    signedIn: async (request: IncomingMessage) => {
      const admission = await gate.admit(request);
      return admission.ok && admission.principal.kind !== 'anonymous';
    },
  });
}

async function respondToApi(
  request: IncomingMessage,
  response: ServerResponse,
  url: URL,
  {
    store,
    dataDir,
    prompts = null,
    importJobs,
    spoolDir,
  }: Pick<ApiHandlerOptions, 'store' | 'dataDir' | 'prompts' | 'importJobs' | 'spoolDir'>,
): Promise<void> {
  if (url.pathname === '/api/import') {
    return respondToImport(request, response, url, {
      store,
      ...(importJobs === undefined ? {} : { importJobs }),
      ...(spoolDir === undefined ? {} : { spoolDir }),
    });
  }
  if (url.pathname === BENCH_IMPORT_PATH) {
    return respondToBenchImport(request, response, url, store);
  }
  if (url.pathname === '/api/simulate') return respondToSimulate(request, response, store, prompts);
  if (url.pathname === RUN_RESULTS_PATH) return respondToRunResults(request, response, url, store);
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
