import { createServer } from 'node:http';
import { z } from 'zod';
import type { EnvService } from '@terrarium/curriculum';
import type { PromptFolder } from '@terrarium/worlds';
import type { Store, UserRole } from '@terrarium/db';
import { openMemoryStore } from '@terrarium/db/test-store';
import { addUser } from '../auth/users';
import { SESSION_PROOF_HEADER } from '@terrarium/schema';
import { sessionCookieName } from '../auth/sessions';
import type { BenchRunner } from '../bench/bench-service';
import { createApiRequestHandler } from '../http/api-routes';

/** The program token of every test server (tests are the "program"). */
export const TEST_TOKEN = 'test-token-0123456789abcdef';
/** The password `addUser` gives accounts unless told otherwise. */
export const TEST_PASSWORD = 'correct horse battery';

export interface TestServer {
  url: string;
  token: string;
  store: Store;
  /** `{ authorization: 'Bearer …' }`, to spread into fetch headers. */
  authHeaders: Record<string, string>;
  /** Creates an account directly in the store. */
  addUser(name: string, role: UserRole, password?: string): Promise<void>;
  /**
   * Logs in over HTTP (`auth.login`) and returns the headers the page then sends with each
   * request: the session `cookie`, its proof, and the same-origin `origin`.
   */
  login(name: string, password?: string): Promise<PageHeaders>;
  /** Closes the server, and the store when the helper opened it. */
  close(): Promise<void>;
}

/** What a signed-in page of this server sends: `cookie`, the session proof, `origin`. */
export type PageHeaders = Record<string, string> & { cookie: string };

export interface TestServerOptions {
  /** Default: a fresh in-memory store, closed by `close()`. */
  store?: Store;
  token?: string;
  benchRunner?: BenchRunner;
  /** Loopback: owner sessions for page loads (any non-API path answers a stand-in page). */
  loopback?: boolean;
  /** A smaller JSON body limit, to test 413 without sending 64 MB. */
  maxBodyBytes?: number;
  /** `serve --prompts DIR`. */
  prompts?: PromptFolder;
  /** The environment server behind `/v1/envs` and `/v1/tasks` (default: the server's own). */
  env?: EnvService;
  /** The data folder `/api/health` names to those who may read it. */
  dataDir?: string;
}

/**
 * The API (tRPC, /api, /v1) on 127.0.0.1 behind the real gate, with a known token. Requests from
 * fetch send Host 127.0.0.1:PORT, which the gate accepts; send `authHeaders` or a login cookie.
 */
export async function startTestServer(options: TestServerOptions = {}): Promise<TestServer> {
  const ownStore = options.store === undefined;
  const store = options.store ?? (await openMemoryStore());
  const token = options.token ?? TEST_TOKEN;
  const answer = createApiRequestHandler({
    store,
    token,
    allowedHosts: ['127.0.0.1'],
    loopback: options.loopback ?? false,
    ...(options.maxBodyBytes === undefined ? {} : { maxBodyBytes: options.maxBodyBytes }),
    ...(options.benchRunner === undefined ? {} : { benchRunner: options.benchRunner }),
    ...(options.prompts === undefined ? {} : { prompts: options.prompts }),
    ...(options.env === undefined ? {} : { env: options.env }),
    ...(options.dataDir === undefined ? {} : { dataDir: options.dataDir }),
  });
  const server = createServer((request, response) => {
    if (answer(request, response)) return;
    // Stands in for the web app: a page load, where a loopback server may start a session.
    answer.openPage(request, response).then(
      (answered) => {
        if (!answered)
          response.writeHead(200, { 'content-type': 'text/html' }).end('<!doctype html>');
      },
      () => response.writeHead(500).end(),
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('no TCP port');
  const url = `http://127.0.0.1:${address.port}`;

  return {
    url,
    token,
    store,
    authHeaders: { authorization: `Bearer ${token}` },
    async addUser(name, role, password = TEST_PASSWORD) {
      await addUser(store, { name, role, password });
    },
    async login(name, password = TEST_PASSWORD) {
      const response = await fetch(`${url}/trpc/auth.login`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', origin: url },
        body: JSON.stringify({ name, password }),
      });
      if (response.status !== 200) throw new Error(`login of ${name}: ${response.status}`);
      const cookie = response.headers
        .getSetCookie()
        .map((line) => line.split(';')[0] ?? '')
        .find((pair) => pair.startsWith(`${sessionCookieName(address.port)}=`));
      if (cookie === undefined) throw new Error(`login of ${name} set no session cookie`);
      return { cookie, [SESSION_PROOF_HEADER]: await proofIn(response), origin: url };
    },
    async close() {
      await new Promise<void>((resolve, reject) => {
        server.close((error) => (error ? reject(error) : resolve()));
        server.closeAllConnections();
      });
      if (ownStore) await store.close();
    },
  };
}

const LoginAnswer = z.object({
  result: z.object({ data: z.object({ sessionProof: z.string() }) }),
});

/** The session proof of a login's answer. */
async function proofIn(response: Response): Promise<string> {
  return LoginAnswer.parse(await response.json()).result.data.sessionProof;
}
