import { request as httpRequest } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { appRouter } from '../router';
import { startTestServer, TEST_TOKEN, type TestServer } from '../testing/test-server';
import { SESSION_PROOF_HEADER } from '@terrarium/schema';
import { localOwnerLink } from './request-gate';
import { HTTP_ROUTE_POLICIES, type Access } from './route-policy';

/**
 * Who may call each tRPC procedure. Every procedure of appRouter must be listed: one added
 * without an entry fails below, so nobody ships a procedure whose access nobody decided.
 */
const PROCEDURE_ACCESS: Record<string, Access> = {
  'auth.whoami': 'public',
  'auth.entry': 'public',
  'auth.login': 'public',
  'auth.logout': 'public',
  'auth.downloadLink': 'labeler',
  'auth.changePassword': 'labeler',
  'auth.users.list': 'researcher',
  'auth.users.add': 'researcher',
  'auth.users.remove': 'researcher',
  'auth.users.setRole': 'researcher',
  'auth.users.setPassword': 'researcher',
  'datasets.delete': 'researcher',
  'datasets.list': 'researcher',
  'datasets.quarantine': 'researcher',
  'trajectories.list': 'researcher',
  'trajectories.get': 'researcher',
  'trajectories.markers': 'researcher',
  'trajectories.steps': 'researcher',
  'simulate.available': 'researcher',
  'simulate.run': 'researcher',
  'simulate.fork': 'researcher',
  'simulate.forkEvents': 'researcher',
  'simulate.runEvents': 'researcher',
  'models.endpointHealth': 'researcher',
  'models.neighbors': 'researcher',
  'models.evaluation': 'researcher',
  'models.split': 'researcher',
  'bench.list': 'researcher',
  'bench.items': 'researcher',
  'bench.build': 'researcher',
  'bench.exportLines': 'researcher',
  'bench.exportSft': 'researcher',
  'bench.runs': 'researcher',
  'bench.run': 'researcher',
  'bench.startRun': 'researcher',
  'bench.judgePairwise': 'researcher',
  'bench.cancelRun': 'researcher',
  'bench.stopJudge': 'researcher',
  'bench.resumeRun': 'researcher',
  'bench.retryFailed': 'researcher',
  'bench.deleteRun': 'researcher',
  'bench.delete': 'researcher',
  'bench.watchRun': 'researcher',
  'bench.leaderboard': 'researcher',
  'bench.report': 'researcher',
  'bench.cellItems': 'researcher',
  'bench.chartSlices': 'researcher',
  'bench.compareRuns': 'researcher',
  'bench.recomputeItem': 'researcher',
  // Labeling: labelers work their queues; setting queues up and judging agreement is research.
  'labels.createQueue': 'researcher',
  'labels.deleteQueue': 'researcher',
  'labels.queues': 'labeler',
  'labels.queue': 'labeler',
  'labels.items': 'researcher',
  'labels.next': 'labeler',
  'labels.labeledItem': 'labeler',
  'labels.heartbeat': 'labeler',
  'labels.release': 'labeler',
  'labels.skip': 'labeler',
  'labels.skips': 'labeler',
  'labels.takeBackSkips': 'labeler',
  'labels.submit': 'labeler',
  'labels.edit': 'labeler',
  'labels.labels': 'labeler',
  'labels.history': 'researcher',
  'labels.disagreements': 'researcher',
  'labels.adjudicate': 'researcher',
  'labels.adjudications': 'researcher',
  'labels.agreement': 'researcher',
  'labels.exportJsonl': 'researcher',
  'labels.importJsonl': 'researcher',
  'labels.judgeVersions': 'researcher',
  'labels.flips': 'researcher',
  'labels.rejudge': 'researcher',
  'labels.rejudgeStatus': 'researcher',
  // Rule sets: labelers read the criteria they label against; only researchers change them.
  'rulesets.schema': 'labeler',
  'rulesets.list': 'labeler',
  'rulesets.versions': 'labeler',
  'rulesets.get': 'labeler',
  'rulesets.validate': 'researcher',
  'rulesets.save': 'researcher',
  'rulesets.diff': 'researcher',
  'rulesets.preview': 'researcher',
  'rulesets.scoreRun': 'researcher',
  'rulesets.scoreRunStatus': 'researcher',
  'rulesets.itemBreakdowns': 'researcher',
  'worlds.sufficiency': 'researcher',
  'worlds.sufficiencyEvents': 'researcher',
  'curriculum.resume': 'researcher',
  'curriculum.run': 'researcher',
  'curriculum.start': 'researcher',
  'curriculum.list': 'researcher',
  'curriculum.get': 'researcher',
  'curriculum.cancel': 'researcher',
  'curriculum.rollouts': 'researcher',
  'imports.list': 'researcher',
  'imports.get': 'researcher',
  'imports.cancel': 'researcher',
  'curriculum.divergences': 'researcher',
  'curriculum.policies': 'researcher',
  'curriculum.seeds': 'researcher',
  'curriculum.exportTasks': 'researcher',
};

// tRPC offers the flat record of procedures ("a.b" → procedure) only under `_def`.
// oxlint-disable-next-line no-underscore-dangle
const PROCEDURES = new Map<string, unknown>(Object.entries(appRouter._def.procedures));

/** `POST /v1/tasks/export` of one builtin task with these headers. */
function exportTasks(url: string, headers: Record<string, string>): Promise<Response> {
  return fetch(`${url}/v1/tasks/export`, {
    method: 'POST',
    headers: { ...headers, 'content-type': 'application/json' },
    body: JSON.stringify({ format: 'jsonl', tasks: ['scratch-last-line'] }),
  });
}

type Caller = 'anonymous' | 'labeler' | 'researcher' | 'program';
const CALLERS: readonly Caller[] = ['anonymous', 'labeler', 'researcher', 'program'];

/** What the design says: the HTTP status class a caller gets (denied ones say why). */
function expectedVerdict(access: Access, caller: Caller): 'allowed' | 401 | 403 {
  if (access === 'public' || caller === 'program' || caller === 'researcher') return 'allowed';
  if (caller === 'anonymous') return 401;
  return access === 'labeler' ? 'allowed' : 403;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

// A procedure is a function carrying `_def`; read it without trusting tRPC's internal types.
function procedureType(procedure: unknown): string {
  const def =
    typeof procedure === 'function' || isRecord(procedure)
      ? Object.getOwnPropertyDescriptor(procedure, '_def')?.value
      : undefined;
  const type = isRecord(def) ? def['type'] : undefined;
  if (typeof type !== 'string') throw new Error('a procedure without a type');
  return type;
}

/** The tRPC error code of a JSON body, or null when it is no error. */
function trpcCode(body: unknown): string | null {
  const error = isRecord(body) ? body['error'] : undefined;
  const data = isRecord(error) ? error['data'] : undefined;
  const code = isRecord(data) ? data['code'] : undefined;
  return typeof code === 'string' ? code : null;
}

/** The message of an error body, `{"error": {"message": …}}`; null when it has none. */
function errorMessage(body: unknown): string | null {
  const error = isRecord(body) ? body['error'] : undefined;
  const message = isRecord(error) ? error['message'] : undefined;
  return typeof message === 'string' ? message : null;
}

/** The code of the stream's error event; null when it ends (or stalls past the timeout) without. */
async function subscriptionCode(response: Response): Promise<string | null> {
  const reader = response.body?.getReader();
  if (!reader) return null;
  let text = '';
  const decoder = new TextDecoder();
  try {
    while (text.length < 100_000) {
      const chunk = await reader.read();
      if (chunk.done) break;
      text += decoder.decode(chunk.value, { stream: true });
      const error = /event: serialized-error\ndata: (.*)\n/.exec(text);
      if (error?.[1] !== undefined) {
        const parsed: unknown = JSON.parse(error[1]);
        const data = isRecord(parsed) ? parsed['data'] : undefined;
        const code = isRecord(data) ? data['code'] : undefined;
        return typeof code === 'string' ? code : null;
      }
    }
    return null;
  } finally {
    await reader.cancel();
  }
}

function verdictOf(status: number, code: string | null): 'allowed' | 401 | 403 {
  if (status === 401 || code === 'UNAUTHORIZED') return 401;
  if (status === 403 || code === 'FORBIDDEN') return 403;
  return 'allowed';
}

/** A raw request, for headers fetch will not let a caller set (Host). */
/** What OpenAI's clients read from an error body. */
const OpenAIErrorBody = z.object({
  error: z.object({
    message: z.string().min(1),
    type: z.string(),
    param: z.string().nullable(),
    code: z.null(),
  }),
});

function rawRequest(
  url: string,
  options: {
    method?: string;
    path: string;
    headers: Record<string, string>;
    body?: string;
    /** The client's own address (any of 127.0.0.0/8 reaches a loopback server). */
    localAddress?: string;
  },
): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const target = new URL(url);
    const sent = httpRequest(
      {
        host: target.hostname,
        port: target.port,
        path: options.path,
        method: options.method ?? 'GET',
        headers: options.headers,
        ...(options.localAddress === undefined ? {} : { localAddress: options.localAddress }),
      },
      (response) => {
        const parts: Buffer[] = [];
        response.on('data', (part: Buffer) => parts.push(part));
        response.on('end', () =>
          resolve({ status: response.statusCode ?? 0, body: Buffer.concat(parts).toString() }),
        );
      },
    );
    sent.on('error', reject);
    sent.end(options.body);
  });
}

describe('one gate: every procedure and route as every kind of caller', () => {
  let server: TestServer;
  const headersOf: Record<Caller, Record<string, string>> = {
    anonymous: {},
    labeler: {},
    researcher: {},
    program: {},
  };

  beforeAll(async () => {
    server = await startTestServer({ dataDir: '/srv/terrarium-data' });
    await server.addUser('lena', 'labeler');
    await server.addUser('rosa', 'researcher');
    // Browser requests: the session cookie, its proof and the same-origin Origin a page sends.
    headersOf.labeler = await server.login('lena');
    headersOf.researcher = await server.login('rosa');
    headersOf.program = server.authHeaders;
  }, 120_000);
  afterAll(() => server.close());

  /** The data folder `/api/health` names to `caller`, null when it names none. */
  async function dataDirOf(caller: Caller): Promise<unknown> {
    const response = await fetch(`${server.url}/api/health`, { headers: headersOf[caller] });
    const body: unknown = await response.json();
    return typeof body === 'object' && body !== null && 'dataDir' in body ? body.dataDir : null;
  }

  it('names the data folder in the health report only to those who may read the data', async () => {
    // walk 41: a labeler, refused /api/datasets, read the folder's absolute path here.
    expect(await dataDirOf('anonymous')).toBeNull();
    expect(await dataDirOf('labeler')).toBeNull();
    expect(await dataDirOf('researcher')).toBe('/srv/terrarium-data');
    expect(await dataDirOf('program')).toBe('/srv/terrarium-data');
  });

  it('has a policy entry for every procedure of appRouter, and no stale ones', () => {
    const procedures = [...PROCEDURES.keys()].toSorted();
    const missing = procedures.filter((path) => !(path in PROCEDURE_ACCESS));
    expect(missing, 'add these procedures to PROCEDURE_ACCESS in security.test.ts').toEqual([]);
    expect(Object.keys(PROCEDURE_ACCESS).toSorted()).toEqual(procedures);
  });

  async function callProcedure(path: string, caller: Caller): Promise<'allowed' | 401 | 403> {
    const type = procedureType(PROCEDURES.get(path));
    // Empty input: the access check runs before input parsing, so an allowed caller gets a 400
    // (or an answer) and nothing changes, while a denied one gets 401/403.
    const input = encodeURIComponent(JSON.stringify({}));
    const headers = headersOf[caller];
    if (type === 'mutation') {
      const response = await fetch(`${server.url}/trpc/${path}`, {
        method: 'POST',
        headers: { ...headers, 'content-type': 'application/json' },
        body: '{}',
      });
      return verdictOf(response.status, trpcCode(await response.json()));
    }
    if (type === 'subscription') {
      const response = await fetch(`${server.url}/trpc/${path}?input=${input}`, {
        headers: { ...headers, accept: 'text/event-stream' },
        signal: AbortSignal.timeout(10_000),
      });
      return verdictOf(response.status, await subscriptionCode(response).catch(() => null));
    }
    const response = await fetch(`${server.url}/trpc/${path}?input=${input}`, { headers });
    return verdictOf(response.status, trpcCode(await response.json()));
  }

  it('allows and denies every procedure as designed', { timeout: 120_000 }, async () => {
    const got: string[] = [];
    const want: string[] = [];
    for (const [path, access] of Object.entries(PROCEDURE_ACCESS)) {
      if (!PROCEDURES.has(path)) continue;
      for (const caller of CALLERS) {
        // auth.logout as a logged-in user would end the session the next calls use.
        if (path === 'auth.logout' && (caller === 'labeler' || caller === 'researcher')) continue;
        got.push(`${path} as ${caller}: ${await callProcedure(path, caller)}`);
        want.push(`${path} as ${caller}: ${expectedVerdict(access, caller)}`);
      }
    }
    expect(got).toEqual(want);
    expect(got.length).toBeGreaterThan(200);
  });

  it('answers a query too long for a URL sent as a POST, under the POST rules', async () => {
    // A rule set of ~20 KB checked as it is typed: as a GET its URL passed the header limit (431).
    const document = `# ${'a long comment line for the rule set editor '.repeat(400)}\nid: long\nrules: []\n`;
    const post = (headers: Record<string, string>) =>
      fetch(`${server.url}/trpc/rulesets.validate`, {
        method: 'POST',
        headers: { ...headers, 'content-type': 'application/json' },
        body: JSON.stringify({ document }),
      });
    const asGet = await fetch(
      `${server.url}/trpc/rulesets.validate?input=${encodeURIComponent(JSON.stringify({ document }))}`,
      { headers: headersOf.researcher },
    );
    expect(asGet.status).toBe(431);
    const answered = await post(headersOf.researcher);
    expect(answered.status).toBe(200);
    expect(await answered.json()).toMatchObject({ result: { data: { ok: false } } });
    expect((await post({ ...headersOf.researcher, origin: 'http://evil.example' })).status).toBe(
      403,
    );
    expect(verdictOf((await post(headersOf.labeler)).status, null)).toBe(403);
    expect((await post({})).status).toBe(401);
  });

  it('allows and denies every HTTP route as designed', { timeout: 60_000 }, async () => {
    const got: string[] = [];
    const want: string[] = [];
    const routes = [
      ...HTTP_ROUTE_POLICIES.map((policy) => ({
        path: policy.prefix ? `${policy.path}x` : policy.path,
        access: policy.access,
      })),
      // Not in the table: as strict as researcher-only.
      { path: '/api/not-listed', access: 'researcher' as const },
      { path: '/v1/not-listed', access: 'researcher' as const },
    ];
    for (const route of routes) {
      for (const caller of CALLERS) {
        // GET: a POST route answers 405 to an allowed caller and nothing runs.
        const response = await fetch(`${server.url}${route.path}`, { headers: headersOf[caller] });
        await response.body?.cancel();
        got.push(`${route.path} as ${caller}: ${verdictOf(response.status, null)}`);
        want.push(`${route.path} as ${caller}: ${expectedVerdict(route.access, caller)}`);
      }
    }
    expect(got).toEqual(want);
  });

  it('lets only researchers and programs delete a task, from this origin', async () => {
    // A built-in task: the route answers 409 to a caller it lets through, and nothing changes.
    const remove = (headers: Record<string, string>) =>
      fetch(`${server.url}/v1/tasks/scratch-last-line`, { method: 'DELETE', headers });
    const verdicts: Record<string, number> = {};
    for (const caller of CALLERS) verdicts[caller] = (await remove(headersOf[caller])).status;
    verdicts['foreign origin'] = (
      await remove({ ...headersOf.researcher, origin: 'http://evil.example' })
    ).status;
    expect(verdicts).toEqual({
      anonymous: 401,
      labeler: 403,
      researcher: 409,
      program: 409,
      'foreign origin': 403,
    });
    expect(
      (await fetch(`${server.url}/v1/tasks/scratch-last-line`, { headers: headersOf.program }))
        .status,
    ).toBe(200);
  });

  it('lets only researchers and programs export tasks, from this origin', async () => {
    const verdicts: Record<string, number> = {};
    for (const caller of CALLERS) {
      const response = await exportTasks(server.url, headersOf[caller]);
      await response.body?.cancel();
      verdicts[caller] = response.status;
    }
    const foreign = await exportTasks(server.url, {
      ...headersOf.researcher,
      origin: 'http://evil.example',
    });
    await foreign.body?.cancel();
    verdicts['foreign origin'] = foreign.status;
    expect(verdicts).toEqual({
      anonymous: 401,
      labeler: 403,
      researcher: 200,
      program: 200,
      'foreign origin': 403,
    });
  });

  it('lets a removed account and a logged-out session do nothing', async () => {
    await server.addUser('gone', 'researcher');
    const asGone = await server.login('gone');
    expect((await fetch(`${server.url}/api/datasets`, { headers: asGone })).status).toBe(200);
    await server.store.removeUser('gone');
    expect((await fetch(`${server.url}/api/datasets`, { headers: asGone })).status).toBe(401);

    await server.addUser('leaving', 'labeler');
    const leaving = await server.login('leaving');
    const logout = await fetch(`${server.url}/trpc/auth.logout`, {
      method: 'POST',
      headers: { ...leaving, 'content-type': 'application/json' },
      body: '{}',
    });
    expect(logout.status).toBe(200);
    expect(logout.headers.getSetCookie()[0]).toMatch(/^terrarium_session_\d+=; Max-Age=0; /);
    const whoami = await fetch(`${server.url}/trpc/auth.whoami`, { headers: leaving });
    expect(await whoami.json()).toEqual({ result: { data: { kind: 'anonymous' } } });
    // The web app's client posts no body at all to a procedure without input.
    const again = await server.login('leaving');
    const bodiless = await fetch(`${server.url}/trpc/auth.logout`, {
      method: 'POST',
      headers: { ...again, 'content-type': 'application/json' },
    });
    expect([bodiless.status, await bodiless.json()]).toEqual([
      200,
      { result: { data: { ok: true } } },
    ]);
  });

  it('refuses a wrong password and an unknown name alike', async () => {
    for (const body of [
      { name: 'rosa', password: 'not her password' },
      { name: 'nobody', password: 'not her password' },
    ]) {
      const response = await fetch(`${server.url}/trpc/auth.login`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', origin: server.url },
        body: JSON.stringify(body),
      });
      expect(response.status).toBe(401);
      expect(response.headers.getSetCookie()).toEqual([]);
      expect(await response.json()).toMatchObject({ error: { message: 'wrong name or password' } });
    }
  });

  it('checks one password at a time per address: a batch of guesses is refused but one', async () => {
    const guesses = 12;
    const response = await fetch(
      `${server.url}/trpc/${Array.from({ length: guesses }, () => 'auth.login').join(',')}?batch=1`,
      {
        method: 'POST',
        headers: { 'content-type': 'application/json', origin: server.url },
        body: JSON.stringify(
          Object.fromEntries(
            Array.from({ length: guesses }, (_, index) => [
              String(index),
              { name: `guess-${index}`, password: `wrong password ${index}` },
            ]),
          ),
        ),
      },
    );
    expect(response.headers.get('retry-after')).toBe('1');
    const answers: unknown = await response.json();
    const codes = (Array.isArray(answers) ? answers : []).map(
      (answer: unknown) => JSON.stringify(answer).match(/"code":"([A-Z_]+)"/)?.[1],
    );
    expect(codes.toSorted()).toEqual([
      ...Array.from({ length: guesses - 1 }, () => 'TOO_MANY_REQUESTS'),
      'UNAUTHORIZED',
    ]);
    // The address is free again once its check has ended: the right password logs in.
    const right = await fetch(`${server.url}/trpc/auth.login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', origin: server.url },
      body: JSON.stringify({ name: 'rosa', password: 'correct horse battery' }),
    });
    expect(right.status).toBe(200);
  });

  it('reads at most 64 KiB from a caller who is not signed in', async () => {
    // walk 41: three anonymous 60 MB logins were read and parsed (+390 MB held) before any check.
    const expected = {
      status: 413,
      message: 'a caller who is not signed in may send at most 65536 bytes',
    };
    const big = await fetch(`${server.url}/trpc/auth.login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', origin: server.url },
      body: JSON.stringify({ name: 'rosa', password: 'x'.repeat(100_000) }),
    });
    expect({ status: big.status, message: errorMessage(await big.json()) }).toEqual(expected);
    // A body of no declared length could be any size.
    const chunked = await rawRequest(server.url, {
      method: 'POST',
      path: '/trpc/auth.login',
      headers: {
        'content-type': 'application/json',
        origin: server.url,
        'transfer-encoding': 'chunked',
      },
      body: JSON.stringify({ name: 'rosa', password: 'short' }),
    });
    expect({ status: chunked.status, message: errorMessage(JSON.parse(chunked.body)) }).toEqual(
      expected,
    );
  });

  it('counts every loopback address as one source of guesses', async () => {
    // walk 41: a local program took a fresh address of 127.0.0.0/8 for each guess, and none of 60
    // was held back. Five failures are free; the sixth waits, whatever address it comes from.
    const statuses: number[] = [];
    for (let n = 2; n <= 7; n++) {
      const { status } = await rawRequest(server.url, {
        method: 'POST',
        path: '/trpc/auth.login',
        headers: { 'content-type': 'application/json', origin: server.url },
        body: JSON.stringify({ name: 'maya', password: `guess ${n}` }),
        localAddress: `127.0.0.${n}`,
      });
      statuses.push(status);
    }
    expect(statuses).toEqual([401, 401, 401, 401, 401, 429]);
  });

  it('opens nothing to a session cookie without its proof, as another local port receives it', async () => {
    // walk 41, S2: browsers send a cookie to every port of its host, so a page another program
    // serves on 127.0.0.1 read `terrarium_session` and used it to add a researcher account.
    const page = await server.login('rosa');
    const { cookie } = page;
    const proof = page[SESSION_PROOF_HEADER] ?? '';
    const addAccount = (headers: Record<string, string>) =>
      fetch(`${server.url}/trpc/auth.users.add`, {
        method: 'POST',
        headers: { ...headers, 'content-type': 'application/json' },
        body: JSON.stringify({ name: 'intruder', role: 'researcher', password: 'intruder-pass-1' }),
      }).then((response) => response.status);
    const datasets = (headers: Record<string, string>, query = '') =>
      fetch(`${server.url}/api/datasets${query}`, { headers }).then((response) => response.status);
    // The stolen cookie, replayed with a same-origin Origin (a program can send any header).
    expect(await addAccount({ cookie, origin: server.url })).toBe(401);
    expect(await datasets({ cookie })).toBe(401);
    // A wrong proof, or the proof of another session, is no better.
    expect(await datasets({ cookie, [SESSION_PROOF_HEADER]: `${proof.slice(1)}A` })).toBe(401);
    const other = await server.login('lena');
    expect(
      await datasets({ cookie, [SESSION_PROOF_HEADER]: other[SESSION_PROOF_HEADER] ?? '' }),
    ).toBe(401);
    // The proof goes in the query only of an event stream (EventSource sets no headers); a URL a
    // page navigates to would keep it in the browser's history and download list (walk 42).
    expect(await datasets({ cookie }, `?session_proof=${proof}`)).toBe(401);
    const asEventStream = await fetch(`${server.url}/trpc/auth.whoami?session_proof=${proof}`, {
      headers: { cookie, accept: 'text/event-stream' },
    });
    expect((await asEventStream.text()).match(/"name":"([^"]+)"/)?.[1]).toBe('rosa');
    expect(await datasets({ cookie, accept: 'text/event-stream' }, `?session_proof=${proof}`)).toBe(
      401,
    );
    const postWithQueryProof = await fetch(
      `${server.url}/trpc/auth.logout?session_proof=${proof}`,
      {
        method: 'POST',
        headers: { cookie, origin: server.url, 'content-type': 'application/json' },
        body: '{}',
      },
    );
    expect([postWithQueryProof.status, await whoIs(page)]).toEqual([200, 'rosa']);
    expect(await server.store.listUsers()).not.toContainEqual(
      expect.objectContaining({ name: 'intruder' }),
    );

    // Cookie tossing: a page of another port sets its own session cookie (a labeler's it logged
    // in as) on a narrower path, which the browser then sends first. The page's own session,
    // named by its proof, still answers; the tossed one alone is nobody.
    const tossed = other.cookie;
    expect(await whoIs({ ...page, cookie: `${tossed}; ${cookie}` })).toBe('rosa');
    expect(await whoIs({ cookie: `${tossed}; ${cookie}`, origin: server.url })).toBe('nobody');
  });

  it('opens a download by a one-time link: once, for its path, as the session that asked', async () => {
    // walk 42: the results download carried the session's proof in its URL, which the browser's
    // download list kept ("Copy link address" handed it on), and a download with an ended
    // session failed with no word.
    const rosa = await server.login('rosa');
    const linkFor = async (headers: Record<string, string>, path: string) => {
      const response = await fetch(`${server.url}/trpc/auth.downloadLink`, {
        method: 'POST',
        headers: { ...headers, 'content-type': 'application/json' },
        body: JSON.stringify({ path }),
      });
      const url = /"url":"([^"]+)"/.exec(await response.text())?.[1] ?? null;
      return { status: response.status, url };
    };
    const follow = async (url: string) => {
      const response = await fetch(`${server.url}${url}`);
      const message = /"message":"([^"]*)"/.exec(await response.text())?.[1] ?? '';
      return `${response.status} ${message}`;
    };
    const link = await linkFor(rosa, '/api/bench/results?run=424242');
    expect(link.status).toBe(200);
    expect(link.url).toMatch(/^\/api\/bench\/results\?run=424242&download_code=[\w-]{32}$/);
    const url = link.url ?? '';
    // No cookie, no proof: the code alone opens the path, as rosa (the route ran: no such run).
    expect(await follow(url)).toMatch(/^404 /);
    const usedUp =
      '401 this link was for one download, within a minute, while you were logged in: start it again from the page';
    expect(await follow(url)).toBe(usedUp);
    // A code opens only the path it was issued for.
    const other = await linkFor(rosa, '/api/bench/results?run=1');
    const code = new URL(other.url ?? '', server.url).searchParams.get('download_code') ?? '';
    expect(await follow(`/api/datasets?download_code=${code}`)).toBe(usedUp);
    // …and only its query: a code for run 1 is no code for run 2.
    const forRunOne = await linkFor(rosa, '/api/bench/results?run=1');
    expect(await follow((forRunOne.url ?? '').replace('run=1', 'run=2'))).toBe(usedUp);
    // A link outlives no logout.
    const beforeLogout = await linkFor(rosa, '/api/bench/results?run=424242');
    await fetch(`${server.url}/trpc/auth.logout`, {
      method: 'POST',
      headers: { ...rosa, 'content-type': 'application/json' },
      body: '{}',
    });
    expect(await follow(beforeLogout.url ?? '')).toBe(usedUp);
    // The route's own access still holds: a labeler's link to a run's results is refused there.
    const lenas = await linkFor(await server.login('lena'), '/api/bench/results?run=424242');
    expect(await follow(lenas.url ?? '')).toMatch(/^403 /);
    // Only what a page opens by navigating, only for a logged-in browser.
    const rosaAgain = await server.login('rosa');
    expect((await linkFor(rosaAgain, '/api/datasets')).status).toBe(400);
    expect((await linkFor(rosaAgain, '//evil.example/x')).status).toBe(400);
    expect((await linkFor(rosaAgain, '/\\evil.example/models/x/config.json')).status).toBe(400);
    expect((await linkFor(server.authHeaders, '/api/bench/results?run=1')).status).toBe(400);
    expect(
      (await linkFor({ cookie: rosaAgain.cookie, origin: server.url }, '/api/bench/results?run=1'))
        .status,
    ).toBe(401);
  });

  /** Who `auth.whoami` says the caller is: an account's name, or nobody. */
  async function whoIs(headers: Record<string, string>): Promise<string> {
    const response = await fetch(`${server.url}/trpc/auth.whoami`, { headers });
    return (await response.text()).match(/"name":"([^"]+)"/)?.[1] ?? 'nobody';
  }

  it('ends the browser’s previous session when it logs in again', async () => {
    // walk 41: after a login as another account, the old cookie still let its holder in.
    const before = await server.login('lena');
    const again = await fetch(`${server.url}/trpc/auth.login`, {
      method: 'POST',
      headers: { ...before, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'rosa', password: 'correct horse battery' }),
    });
    expect(again.status).toBe(200);
    const whoami = async (headers: Record<string, string>) => {
      const response = await fetch(`${server.url}/trpc/auth.whoami`, { headers });
      return JSON.stringify(await response.json());
    };
    expect(await whoami(before)).toContain('"kind":"anonymous"');
    const [after] = again.headers.getSetCookie();
    const answer = z
      .object({ result: z.object({ data: z.object({ sessionProof: z.string() }) }) })
      .parse(await again.json());
    expect(
      await whoami({
        cookie: (after ?? '').split(';')[0] ?? '',
        [SESSION_PROOF_HEADER]: answer.result.data.sessionProof,
      }),
    ).toContain('"name":"rosa"');
  });

  it('sets the session cookie HttpOnly and SameSite=Strict', async () => {
    const response = await fetch(`${server.url}/trpc/auth.login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', origin: server.url },
      body: JSON.stringify({ name: 'rosa', password: 'correct horse battery' }),
    });
    const [cookie] = response.headers.getSetCookie();
    expect(cookie).toMatch(
      /^terrarium_session_\d+=[A-Za-z0-9_-]{43}; Max-Age=604800; Path=\/; HttpOnly; SameSite=Strict$/,
    );
  });

  it('refuses a wrong bearer token even where no login is needed', async () => {
    const wrong = await fetch(`${server.url}/api/health`, {
      headers: { authorization: 'Bearer not-the-token' },
    });
    expect(wrong.status).toBe(401);
    const right = await fetch(`${server.url}/api/health`, {
      headers: { authorization: `Bearer ${TEST_TOKEN}` },
    });
    expect(right.status).toBe(200);
  });

  it('takes a token from the URL only on the OpenRLHF reward route', async () => {
    const body = JSON.stringify({ query: ['a b'], prompts: ['a '], labels: ['b'] });
    const post = (path: string) =>
      fetch(`${server.url}${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body,
      });
    const openrlhf = '/v1/reward/openrlhf?ruleSet=default-tool';
    expect((await post(`${openrlhf}&token=${TEST_TOKEN}`)).status).toBe(200);
    expect((await post(`${openrlhf}&token=not-the-token`)).status).toBe(401);
    expect((await post(openrlhf)).status).toBe(401);
    const reward = JSON.stringify({ ruleSet: { name: 'default-tool' }, items: [] });
    const elsewhere = await fetch(`${server.url}/v1/reward?token=${TEST_TOKEN}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: reward,
    });
    expect(elsewhere.status).toBe(401);
  });

  it('refuses every Host that is not the bound address, GETs included', async () => {
    const port = new URL(server.url).port;
    const attempts = [
      { path: '/api/health', host: `evil.example:${port}` },
      { path: '/api/datasets', host: `evil.example:${port}` },
      { path: '/trpc/datasets.list', host: `rebind.attacker.test:${port}` },
      { path: '/v1/models', host: `localhost.attacker.test:${port}` },
      { path: '/', host: `evil.example:${port}` },
    ];
    for (const attempt of attempts) {
      const answer = await rawRequest(server.url, {
        path: attempt.path,
        headers: { host: attempt.host, ...server.authHeaders },
      });
      expect(`${attempt.path} via ${attempt.host}: ${answer.status}`).toBe(
        `${attempt.path} via ${attempt.host}: 421`,
      );
    }
    const own = await rawRequest(server.url, {
      path: '/api/health',
      headers: { host: `127.0.0.1:${port}` },
    });
    expect(own.status).toBe(200);
  });

  it('refuses foreign-origin requests whatever they carry', async () => {
    const attacks: { name: string; headers: Record<string, string> }[] = [
      {
        name: 'text/plain POST',
        headers: { origin: 'http://127.0.0.1:1', 'content-type': 'text/plain' },
      },
      { name: 'null origin', headers: { origin: 'null', 'content-type': 'text/plain' } },
      { name: 'cross-site fetch', headers: { 'sec-fetch-site': 'cross-site' } },
      { name: 'same-site (other port)', headers: { 'sec-fetch-site': 'same-site' } },
      {
        name: 'foreign origin with the researcher cookie',
        headers: { cookie: headersOf.researcher.cookie ?? '', origin: 'http://localhost:9' },
      },
      {
        name: 'cookie and proof without any origin',
        headers: {
          cookie: headersOf.researcher.cookie ?? '',
          [SESSION_PROOF_HEADER]: headersOf.researcher[SESSION_PROOF_HEADER] ?? '',
          'content-type': 'text/plain',
        },
      },
    ];
    for (const attack of attacks) {
      const response = await fetch(`${server.url}/api/simulate`, {
        method: 'POST',
        headers: attack.headers,
        body: JSON.stringify({ dataset: 'x', sim: 'replay' }),
      });
      expect(`${attack.name}: ${response.status}`).toBe(`${attack.name}: 403`);
      expect(response.headers.get('access-control-allow-origin')).toBeNull();
    }
  });

  it('caps maxSteps of /api/simulate like tRPC does', async () => {
    for (const path of ['/api/simulate', '/trpc/simulate.run']) {
      const response = await fetch(`${server.url}${path}`, {
        method: 'POST',
        headers: { ...server.authHeaders, 'content-type': 'application/json' },
        body: JSON.stringify({ dataset: 'd', trajectoryId: 't', sim: 'replay', maxSteps: 501 }),
      });
      expect(response.status).toBe(400);
      expect(JSON.stringify(await response.json())).toContain('"field":"maxSteps"');
    }
  });
});

describe('errors and body limits', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ maxBodyBytes: 1000 });
  }, 120_000);
  afterAll(() => server.close());

  it('answers 413 on every transport past the one body limit', async () => {
    const big = JSON.stringify({ padding: 'x'.repeat(2000) });
    for (const path of [
      '/trpc/bench.build',
      '/api/simulate',
      '/v1/chat/completions',
      '/v1/reward',
      '/v1/envs',
      '/v1/tasks',
    ]) {
      const response = await fetch(`${server.url}${path}`, {
        method: 'POST',
        headers: { ...server.authHeaders, 'content-type': 'application/json' },
        body: big,
      });
      expect(`${path}: ${response.status}`).toBe(`${path}: 413`);
      // The same words everywhere, with the limit (tRPC's own said only PAYLOAD_TOO_LARGE).
      expect(JSON.stringify(await response.json())).toContain(
        'the request body exceeds 1000 bytes',
      );
    }
  });

  it('reads a body under the one limit on the environment routes too', async () => {
    // walk 41: /v1/envs and /v1/tasks refused 1 MiB and more, where every other route takes 64 MiB.
    const normal = await startTestServer();
    try {
      const response = await fetch(`${normal.url}/v1/tasks`, {
        method: 'POST',
        headers: { ...normal.authHeaders, 'content-type': 'application/json' },
        body: JSON.stringify({ padding: 'x'.repeat(2 * 1024 * 1024) }),
      });
      // Read whole, then refused for what it says, not for its size.
      expect(response.status).toBe(400);
      const { error } = z
        .object({ error: z.object({ message: z.string() }) })
        .parse(await response.json());
      // Every field the task lacks, named in the message itself (walk 52: `bad task` alone).
      expect(error.message).toBe(
        'id: missing (expected string); goal: missing (expected string); world: missing (expected object); ' +
          'verifier: missing (expected object); oracle: missing (expected array); provenance: missing (expected object)',
      );
    } finally {
      await normal.close();
    }
  });

  it("refuses on the OpenAI-compatible routes in OpenAI's error shape, elsewhere in Terrarium's", async () => {
    const port = new URL(server.url).port;
    const chat = `${server.url}/v1/chat/completions`;
    const refusals: { name: string; answer: () => Promise<{ status: number; body: unknown }> }[] = [
      {
        name: 'no token',
        answer: async () => {
          const response = await fetch(`${server.url}/v1/models`);
          return { status: response.status, body: await response.json() };
        },
      },
      {
        name: 'wrong token',
        answer: async () => {
          const response = await fetch(chat, {
            method: 'POST',
            headers: { authorization: 'Bearer not-the-token' },
            body: '{}',
          });
          return { status: response.status, body: await response.json() };
        },
      },
      {
        name: 'foreign origin',
        answer: async () => {
          const response = await fetch(chat, {
            method: 'POST',
            headers: { ...server.authHeaders, origin: 'http://127.0.0.1:1' },
            body: '{}',
          });
          return { status: response.status, body: await response.json() };
        },
      },
      {
        name: 'foreign host',
        answer: async () => {
          const answer = await rawRequest(server.url, {
            path: '/v1/models',
            headers: { host: `evil.example:${port}`, ...server.authHeaders },
          });
          return { status: answer.status, body: JSON.parse(answer.body) };
        },
      },
      {
        name: 'too big',
        answer: async () => {
          const response = await fetch(chat, {
            method: 'POST',
            headers: { ...server.authHeaders, 'content-type': 'application/json' },
            body: JSON.stringify({ padding: 'x'.repeat(2000) }),
          });
          return { status: response.status, body: await response.json() };
        },
      },
    ];
    const seen: string[] = [];
    for (const refusal of refusals) {
      const { status, body } = await refusal.answer();
      const parsed = OpenAIErrorBody.safeParse(body);
      seen.push(
        `${refusal.name}: ${status} ${parsed.success ? parsed.data.error.type : 'not OpenAI'}`,
      );
    }
    expect(seen).toEqual([
      'no token: 401 invalid_request_error',
      'wrong token: 401 invalid_request_error',
      'foreign origin: 403 invalid_request_error',
      'foreign host: 421 invalid_request_error',
      'too big: 413 invalid_request_error',
    ]);
    // The rest of the API keeps its own shape (`issues` where fields are at fault).
    const api = await fetch(`${server.url}/api/datasets`);
    expect(api.status).toBe(401);
    expect(await api.json()).toEqual({ error: { message: expect.any(String) } });
  });

  it('refuses text with a NUL character as the caller’s error, naming the field', async () => {
    const query = encodeURIComponent(JSON.stringify({ name: 'default\u0000tool' }));
    const get = await fetch(`${server.url}/trpc/rulesets.get?input=${query}`, {
      headers: server.authHeaders,
    });
    expect(get.status).toBe(400);
    expect(await get.json()).toMatchObject({
      error: { message: 'name: text may not contain a NUL character (\\u0000)' },
    });
    const start = await fetch(`${server.url}/trpc/bench.startRun`, {
      method: 'POST',
      headers: { ...server.authHeaders, 'content-type': 'application/json' },
      body: JSON.stringify({ bench: 'b', sims: ['replay', 're\u0000trieval'] }),
    });
    expect(start.status).toBe(400);
    expect(await start.json()).toMatchObject({
      error: { message: 'sims.1: text may not contain a NUL character (\\u0000)' },
    });
  });

  it('puts no stack, path or SQL into an internal error', async () => {
    const failing = await startTestServer({
      store: {
        ...server.store,
        listDatasets: () =>
          Promise.reject(
            new Error('relation "datasets" at /srv/secret/db: SELECT * FROM datasets'),
          ),
      },
    });
    try {
      for (const path of ['/trpc/datasets.list', '/api/datasets']) {
        const response = await fetch(`${failing.url}${path}`, { headers: failing.authHeaders });
        const text = await response.text();
        expect(`${path}: ${response.status}`).toBe(`${path}: 500`);
        expect(text).toContain('internal error');
        expect(text).not.toMatch(/SELECT|\/srv\/|stack|\.ts:\d/);
      }
    } finally {
      await failing.close();
    }
  });
});

describe('the local owner on loopback', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ loopback: true });
  }, 120_000);
  afterAll(() => server.close());

  it('gets a session only by the link serve prints, while no account exists, and loses it with the first', async () => {
    const document = { 'sec-fetch-dest': 'document' };
    // Every user of a shared machine reaches loopback: a page load alone proves nothing.
    const plain = await fetch(`${server.url}/`, { headers: document });
    expect(plain.headers.getSetCookie()).toEqual([]);
    const wrong = await fetch(`${server.url}/datasets?token=not-the-token`, {
      headers: document,
      redirect: 'manual',
    });
    expect([wrong.status, wrong.headers.get('location'), wrong.headers.getSetCookie()]).toEqual([
      303,
      '/datasets#owner-link-refused',
      [],
    ]);
    // The redirect stays on this server whatever the path (`//host` would leave it).
    const { request } = await import('node:http');
    const location = await new Promise<string | undefined>((resolve, reject) => {
      const target = new URL(server.url);
      request({
        host: target.hostname,
        port: target.port,
        path: `/.//evil.example/?token=${TEST_TOKEN}`,
        headers: { ...document, host: target.host },
      })
        .on('response', (response) => {
          response.resume();
          resolve(response.headers.location);
        })
        .on('error', reject)
        .end();
    });
    expect(location?.replace(/#session-proof=[\w-]{43}$/, '')).toBe('/evil.example/');
    // The link opens any page; the token leaves the address bar on the way.
    const link = localOwnerLink(`${server.url}/datasets/3/compare?step=2`, TEST_TOKEN);
    expect(link).toBe(`${server.url}/datasets/3/compare?step=2&token=${TEST_TOKEN}`);
    const page = await fetch(link, { headers: document, redirect: 'manual' });
    // The session's proof rides in the fragment, which no server is sent; the page keeps it.
    const sentTo = page.headers.get('location') ?? '';
    expect([page.status, sentTo.replace(/=[\w-]{43}$/, '=…')]).toEqual([
      303,
      '/datasets/3/compare?step=2#session-proof=…',
    ]);
    const [cookie] = page.headers.getSetCookie();
    const pair = cookie?.split(';')[0] ?? '';
    expect(pair).toMatch(/^terrarium_session_\d+=/);
    const proof = sentTo.slice(sentTo.lastIndexOf('=') + 1);
    const asOwner = { cookie: pair, [SESSION_PROOF_HEADER]: proof, origin: server.url };
    // The cookie alone, as any page on another port of 127.0.0.1 receives it, opens nothing.
    const cookieAlone = await fetch(`${server.url}/api/datasets`, {
      headers: { cookie: pair, origin: server.url },
    });
    expect(cookieAlone.status).toBe(401);
    const whoami = await fetch(`${server.url}/trpc/auth.whoami`, { headers: asOwner });
    expect(await whoami.json()).toEqual({
      result: {
        data: { kind: 'user', userId: 'local-owner', name: 'owner', role: 'researcher' },
      },
    });
    expect((await fetch(`${server.url}/api/datasets`, { headers: asOwner })).status).toBe(200);

    await server.addUser('first', 'researcher');
    expect((await fetch(`${server.url}/api/datasets`, { headers: asOwner })).status).toBe(401);
    const again = await fetch(localOwnerLink(`${server.url}/`, TEST_TOKEN), {
      headers: document,
      redirect: 'manual',
    });
    expect([again.status, again.headers.get('location'), again.headers.getSetCookie()]).toEqual([
      303,
      '/#owner-link-refused',
      [],
    ]);
  });
});
