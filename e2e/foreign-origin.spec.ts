import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, expect, test } from '@playwright/test';
import type { Store } from '../packages/db/src/index';
import { openStore } from '../packages/db/src/index';
import {
  startServer,
  type AnsweredRequest,
  type RunningServer,
} from '../apps/server/src/start-server';
import { localOwnerLink } from '../packages/api/src/http/request-gate';
import { HTTP_ROUTE_POLICIES } from '../packages/api/src/http/route-policy';
import { RUN_RESULTS_PATH } from '../packages/schema/src/index';
import { sessionCookieName } from '../packages/api/src/auth/sessions';
import { e2eToken } from './support/token';

// The servers here are stores of their own: none of the served store's cookie (global-setup.ts).
test.use({ storageState: { cookies: [], origins: [] } });

/**
 * Another local origin (a page on another port, and a DNS-rebinding page that names its own host
 * while reaching ours) tries every state-changing route. The browser first opened Terrarium, so it
 * holds the local owner's cookie: the attacks are as strong as they get on this machine. Each
 * attack is listed, and afterwards the store shows that nothing was imported, simulated or started.
 */

const REBIND_HOST = 'rebind.attacker.test';

// Store methods the gate itself calls (sessions, the no-accounts check); any other call means an
// attack reached a route.
const GATE_METHODS = new Set(['getSession', 'countUsers', 'createSession', 'close']);

const CHAT_RECORD = JSON.stringify({
  id: 'pwned',
  messages: [
    { role: 'user', content: 'list files' },
    { role: 'assistant', content: 'a.txt' },
  ],
});

interface Attack {
  name: string;
  path: string;
  body: string;
}

/**
 * Routes of route-policy.ts that change nothing: they answer GET only, so a form or a no-cors
 * fetch (POST) gets 405 at most, and the rebinding test shows reads refused too.
 */
const READ_ONLY_ROUTES: ReadonlySet<string> = new Set([
  '/api/health',
  '/api/datasets',
  RUN_RESULTS_PATH,
  '/v1/models',
  '/v1/worlds',
  '/v1/openapi.json',
]);

/**
 * Each state-changing HTTP route of route-policy.ts (by its policy path), with the POSTs that would
 * change something if they got through. The first test checks these keys against the policy, so a
 * route added there fails this spec until it is attacked here or said to be read-only. DELETE
 * (`/v1/envs/{id}`, `/v1/tasks/{id}`) is not listed: another origin can send it only after a CORS
 * preflight, which the server never grants.
 */
const HTTP_ATTACKS: Readonly<Record<string, readonly Attack[]>> = {
  '/api/import': [
    { name: 'import', path: '/api/import?dataset=pwned&file=pwned.jsonl', body: CHAT_RECORD },
  ],
  '/api/bench/import': [
    {
      name: 'bench import',
      path: '/api/bench/import?name=pwned&file=pwned.jsonl',
      body: JSON.stringify({ id: 'pwned', task: 'intercode/bash', turn_idx: 0 }),
    },
  ],
  '/api/simulate': [
    {
      name: 'simulate',
      path: '/api/simulate',
      body: JSON.stringify({ dataset: 'seed', sim: 'replay' }),
    },
  ],
  '/v1/chat/completions': [
    {
      name: 'chat completions',
      path: '/v1/chat/completions',
      body: JSON.stringify({
        model: 'replay@seed',
        messages: [{ role: 'user', content: 'list files' }],
      }),
    },
  ],
  '/v1/envs': [
    { name: 'open an environment', path: '/v1/envs', body: JSON.stringify({ world: 'terminal' }) },
  ],
  '/v1/envs/': [
    {
      name: 'environment step',
      path: '/v1/envs/pwned-session/step',
      body: JSON.stringify({ action: 'rm -rf /' }),
    },
    { name: 'environment fork', path: '/v1/envs/pwned-session/fork', body: '{}' },
    { name: 'environment evaluate', path: '/v1/envs/pwned-session/evaluate', body: '{}' },
  ],
  '/v1/tasks': [
    {
      name: 'post a task',
      path: '/v1/tasks',
      body: JSON.stringify({ id: 'pwned', world: 'terminal', instruction: 'exfiltrate' }),
    },
  ],
  '/v1/tasks/': [
    {
      name: 'generate tasks',
      path: '/v1/tasks/generate',
      body: JSON.stringify({ dataset: 'seed' }),
    },
    { name: 'export tasks', path: '/v1/tasks/export', body: '{"format":"jsonl"}' },
  ],
  '/v1/reward': [
    {
      name: 'reward',
      path: '/v1/reward',
      body: JSON.stringify({ ruleSet: {}, items: [{ prediction: 'a', reference: 'a' }] }),
    },
  ],
  '/v1/reward/openrlhf': [
    {
      // The token in the URL, as OpenRLHF is configured: even a leaked one opens nothing from
      // another origin.
      name: 'OpenRLHF reward',
      path: `/v1/reward/openrlhf?token=${e2eToken()}`,
      body: JSON.stringify({ query: ['pwned'], prompts: ['pwned'] }),
    },
  ],
};

/** tRPC mutations of every router that has them, each with an input that would act. */
const TRPC_ATTACKS: readonly Attack[] = [
  {
    name: 'tRPC bench.build',
    path: '/trpc/bench.build',
    body: JSON.stringify({ name: 'pwned', datasets: ['seed'] }),
  },
  {
    name: 'tRPC bench.startRun',
    path: '/trpc/bench.startRun',
    body: JSON.stringify({ bench: 'seed', sims: ['replay'] }),
  },
  { name: 'tRPC bench.deleteRun', path: '/trpc/bench.deleteRun', body: '{"runId":"1"}' },
  {
    name: 'tRPC auth.users.add',
    path: '/trpc/auth.users.add',
    body: JSON.stringify({ name: 'intruder', role: 'researcher', password: 'intruder-password' }),
  },
  {
    name: 'tRPC simulate.run',
    path: '/trpc/simulate.run',
    body: JSON.stringify({ trajectoryId: '1', sim: 'replay' }),
  },
  { name: 'tRPC datasets.delete', path: '/trpc/datasets.delete', body: '{"datasetId":"1"}' },
  {
    name: 'tRPC labels.createQueue',
    path: '/trpc/labels.createQueue',
    body: JSON.stringify({ name: 'pwned', runId: '1' }),
  },
  {
    name: 'tRPC labels.importJsonl',
    path: '/trpc/labels.importJsonl',
    body: JSON.stringify({ queueId: '1', text: '{}' }),
  },
  { name: 'tRPC imports.cancel', path: '/trpc/imports.cancel', body: '{"jobId":"1"}' },
  {
    name: 'tRPC curriculum.start',
    path: '/trpc/curriculum.start',
    body: JSON.stringify({ dataset: 'seed' }),
  },
  {
    name: 'tRPC rulesets.save',
    path: '/trpc/rulesets.save',
    body: JSON.stringify({ document: { name: 'pwned', rules: [] }, message: 'pwned' }),
  },
];

/** Every attack: each state-changing HTTP route, and the tRPC mutations. */
const TARGETS: readonly Attack[] = [...Object.values(HTTP_ATTACKS).flat(), ...TRPC_ATTACKS];

/** A path with its `token` query dropped. */
function withoutToken(path: string): string {
  const url = new URL(path, 'http://localhost');
  url.searchParams.delete('token');
  return `${url.pathname}${url.search}`;
}

/** The attacker's page: no-cors fetches and auto-submitted forms at `target`, results in a list. */
function attackPage(target: string): string {
  const targets = JSON.stringify(TARGETS);
  return `<!doctype html><title>attacker</title><body><script>
const target = ${JSON.stringify(target)};
const targets = ${targets};
const done = [];
async function run() {
  for (const t of targets) {
    // A CORS-simple request: text/plain POST, no preflight, cookies of the same site ride along.
    await fetch(target + t.path, { method: 'POST', mode: 'no-cors', credentials: 'include',
      headers: { 'content-type': 'text/plain' }, body: t.body }).then(() => 0, () => 0);
    done.push('fetch ' + t.name);
  }
  await Promise.all(targets.map((t, i) => new Promise((resolve) => {
    const frame = document.createElement('iframe');
    frame.name = 'f' + i;
    frame.onload = resolve;
    document.body.append(frame);
    const form = document.createElement('form');
    form.method = 'POST';
    form.enctype = 'text/plain';
    form.action = target + t.path;
    form.target = frame.name;
    const field = document.createElement('input');
    field.name = t.body.slice(0, 1);
    field.value = t.body.slice(1);
    form.append(field);
    document.body.append(form);
    form.submit();
    done.push('form ' + t.name);
  })));
  window.__attacks = done;
}
run();
</script>`;
}

/** The rebinding page runs on "our" origin, so it can read statuses: every one must be refused. */
function rebindPage(): string {
  const targets = JSON.stringify(TARGETS);
  return `<!doctype html><title>rebound</title><body><script>
const targets = ${targets};
async function run() {
  const seen = [];
  for (const path of ['/api/datasets', '/trpc/datasets.list', '/api/health']) {
    const r = await fetch(path).catch((e) => ({ status: 'failed ' + e.message }));
    seen.push('GET ' + path + ' ' + r.status);
  }
  for (const t of targets) {
    const r = await fetch(t.path, { method: 'POST', headers: { 'content-type': 'text/plain' },
      body: t.body }).catch((e) => ({ status: 'failed ' + e.message }));
    seen.push('POST ' + t.name + ' ' + r.status);
  }
  window.__attacks = seen;
}
run();
</script>`;
}

/** The store, with every call a route would make recorded (the gate's own calls are not). */
function watched(store: Store, calls: string[]): Store {
  return new Proxy(store, {
    get(target, property, receiver) {
      const value: unknown = Reflect.get(target, property, receiver);
      if (typeof value !== 'function' || typeof property !== 'string') return value;
      return (...args: unknown[]): unknown => {
        if (!GATE_METHODS.has(property)) calls.push(property);
        return Reflect.apply(value, target, args);
      };
    },
  });
}

async function listen(server: Server, host: string): Promise<number> {
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('no TCP port');
  return address.port;
}

test.describe('a foreign origin cannot drive the server', () => {
  let dir: string;
  let store: Store;
  let server: RunningServer;
  let attacker: Server;
  let attackerPort: number;
  const calls: string[] = [];
  const answered: AnsweredRequest[] = [];
  /** The Cookie headers the attacker's server was sent. */
  const received: string[] = [];

  test.beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'terrarium-e2e-origin-'));
    await writeFile(join(dir, 'index.html'), '<!doctype html><title>Terrarium</title>');
    store = await openStore({ memory: true });
    server = await startServer({
      store: watched(store, calls),
      webDist: dir,
      token: e2eToken(),
      onAnswered: (answer) => answered.push(answer),
    });
    const target = server.url;
    attacker = createServer((request, response) => {
      // Browsers send a host's cookies to each of its ports: this server receives ours.
      if (request.headers.cookie !== undefined) received.push(request.headers.cookie);
      response.writeHead(200, { 'content-type': 'text/html' });
      response.end(attackPage(target));
      request.resume();
    });
    attackerPort = await listen(attacker, '127.0.0.1');
  });

  test.afterAll(async () => {
    await new Promise((resolve) => attacker.close(resolve));
    await server.close();
    await store.close();
    await rm(dir, { recursive: true, force: true });
  });

  test('every state-changing HTTP route of the route policy is attacked', () => {
    const changing = HTTP_ROUTE_POLICIES.map((policy) => policy.path).filter(
      (path) => !READ_ONLY_ROUTES.has(path),
    );
    expect(Object.keys(HTTP_ATTACKS).toSorted()).toEqual(changing.toSorted());
    // Each attack is on the route it is listed under.
    for (const [route, attacks] of Object.entries(HTTP_ATTACKS)) {
      for (const attack of attacks) {
        const path = attack.path.split('?')[0] ?? '';
        expect(route.endsWith('/') ? path.startsWith(route) : path === route, attack.name).toBe(
          true,
        );
      }
    }
  });

  for (const attackerHost of ['127.0.0.1', 'localhost']) {
    test(`fetch and form POSTs from http://${attackerHost}:port change nothing`, async ({
      page,
    }) => {
      // The victim opened Terrarium first (the link `serve` printed): the browser holds the local
      // owner's session cookie.
      await page.goto(localOwnerLink(server.url, e2eToken()));
      const cookies = await page.context().cookies(server.url);
      expect(cookies.map((cookie) => [cookie.name, cookie.httpOnly, cookie.sameSite])).toEqual([
        [sessionCookieName(Number(new URL(server.url).port)), true, 'Strict'],
      ]);
      calls.length = 0;
      // What the server itself answered each attack: proof that they reached it and were refused
      // there. Read on the server: the browser's network events for no-cors answers and
      // cross-origin form frames are not reliably all reported.
      answered.length = 0;

      await page.goto(`http://${attackerHost}:${attackerPort}/`);
      await page.waitForFunction(() => Array.isArray(Reflect.get(window, '__attacks')), null, {
        timeout: 30_000,
      });
      const attempted: unknown = await page.evaluate(() => Reflect.get(window, '__attacks'));
      expect(attempted).toEqual([
        ...TARGETS.map((t) => `fetch ${t.name}`),
        ...TARGETS.map((t) => `form ${t.name}`),
      ]);

      const refused = TARGETS.map((t) => `POST ${t.path.split('?')[0]} 403`);
      const attacks = () =>
        answered
          .filter((answer) => answer.method === 'POST')
          .map((answer) => `POST ${answer.path} ${answer.status}`);
      // The last form's answer may still be in flight when the page has recorded its attempt.
      await expect.poll(() => attacks().length).toBe(refused.length * 2);
      expect(attacks().toSorted()).toEqual([...refused, ...refused].toSorted());
      expect(calls, 'store calls that only a route makes').toEqual([]);
      expect(await store.listDatasets()).toEqual([]);
      expect(await store.getDatasetByName('pwned')).toBeNull();
      expect(await store.listUsers()).toEqual([]);
      expect(await store.listBenches()).toEqual([]);
      expect(await store.listBenchRuns()).toEqual([]);
    });
  }

  test('the session cookie a page on another port receives opens nothing there', async ({
    page,
  }) => {
    // walk 41, S2: the victim opened Terrarium by its link, then a page another program serves on
    // 127.0.0.1. The browser sent that program Terrarium's session cookie, and the program
    // replayed it (any header it likes: it is not a browser) to add itself a researcher account.
    await page.goto(localOwnerLink(server.url, e2eToken()));
    received.length = 0;
    await page.goto(`http://127.0.0.1:${attackerPort}/`);
    const stolen = received
      .flatMap((header) => header.split(';'))
      .map((pair) => pair.trim())
      .find((pair) => pair.startsWith(`${sessionCookieName(Number(new URL(server.url).port))}=`));
    expect(stolen, 'the premise: the other port was sent the cookie').toMatch(
      /^terrarium_session_\d+=[\w-]{43}$/,
    );
    calls.length = 0;
    const replay = async (path: string, body?: string) =>
      (
        await fetch(`${server.url}${path}`, {
          method: body === undefined ? 'GET' : 'POST',
          headers: { cookie: stolen ?? '', origin: server.url, 'content-type': 'application/json' },
          ...(body === undefined ? {} : { body }),
        })
      ).status;
    expect([
      await replay('/api/datasets'),
      await replay('/trpc/auth.whoami'),
      // A program with the cookie alone: it has no token for the OpenRLHF URL either.
      ...(await Promise.all(TARGETS.map((t) => replay(withoutToken(t.path), t.body)))),
    ]).toEqual([401, 200, ...TARGETS.map(() => 401)]);
    const whoami = await fetch(`${server.url}/trpc/auth.whoami`, {
      headers: { cookie: stolen ?? '' },
    });
    expect(await whoami.json()).toEqual({ result: { data: { kind: 'anonymous' } } });
    expect(calls, 'store calls that only a route makes').toEqual([]);
    expect(await store.listUsers()).toEqual([]);
  });

  test('a DNS-rebinding page naming its own host is refused on every route', async () => {
    // This browser resolves the attacker's name to our address, as a rebinding DNS server makes
    // it do; the page itself still comes from "the attacker" (the test), everything else from us.
    const port = new URL(server.url).port;
    const browser = await chromium.launch({
      executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
      headless: true,
      args: [
        '--no-sandbox',
        '--disable-quic',
        '--no-first-run',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
        `--host-resolver-rules=MAP ${REBIND_HOST} 127.0.0.1`,
        // Chromium's Private Network Access would block these requests itself; other browsers
        // (Firefox, Safari) have no such check, so leave only the server's gate in the way.
        '--disable-features=BlockInsecurePrivateNetworkRequests,PrivateNetworkAccessSendPreflights,PrivateNetworkAccessRespectPreflightResults,LocalNetworkAccessChecks',
      ],
    });
    const context = await browser.newContext();
    const page = await context.newPage();
    const origin = `http://${REBIND_HOST}:${port}`;
    await page.route(`${origin}/`, (route) =>
      route.fulfill({ status: 200, contentType: 'text/html', body: rebindPage() }),
    );
    calls.length = 0;
    await page.goto(`${origin}/`);
    await page.waitForFunction(() => Array.isArray(Reflect.get(window, '__attacks')), null, {
      timeout: 30_000,
    });
    const seen: unknown = await page.evaluate(() => Reflect.get(window, '__attacks'));
    expect(seen).toEqual([
      'GET /api/datasets 421',
      'GET /trpc/datasets.list 421',
      'GET /api/health 421',
      ...TARGETS.map((t) => `POST ${t.name} 421`),
    ]);
    expect(calls).toEqual([]);
    expect(await store.listUsers()).toEqual([]);
    expect(await store.listBenches()).toEqual([]);
    await browser.close();
  });
});
