import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Store } from '@terrarium/db';
import { z } from 'zod';
import { listDatasetTrajectories, loadListed } from '../simulate/load-trajectories';
import {
  addTrajectoryTasks,
  catalogTasks,
  createEnvService,
  exportTasks,
  CreateEnvRequest,
  isSessionError,
  MAX_EXPORT_TASKS,
  moveFromRequest,
  StepEnvRequest,
  stepBodyExtras,
  Task,
  TaskExportRequest,
  worldParamsProblem,
  type CodeRunner,
  type EnvService,
  type SessionError,
  type SessionLimits,
} from '@terrarium/curriculum';
import type { StepEnvRequest as StepBody } from '@terrarium/curriculum';
import { sendError, sendJson } from './json-response';
import { BodyError, MAX_JSON_BODY_BYTES } from './read-json-body';
import { CustomRule } from '@terrarium/rubrics';
import { sharedCustomRuleRunner } from '../rulesets/sandbox-runner';
import { fieldIssues, issuesMessage } from '../trpc';
import { storeEnvPersistence } from './env-routes-persistence';
import { loadToolWorlds, toolWorldFilesIn, type ToolWorldFiles } from './env-routes-tool-worlds';
import { ENV_OPENAPI_PATH, openApiDocument } from './openapi';

/**
 * The body limit of each request `respondToEnv` answers: the server's one limit for every transport
 * (`maxBodyBytes`), as tRPC, /api and the other /v1 routes have (walk 41: these said 1 MiB, and a
 * declared length over 64 MiB was refused in the others' words).
 */
const bodyLimits = new WeakMap<IncomingMessage, number>();

const SESSION_ROUTE = /^\/v1\/envs\/([A-Za-z0-9-]{1,64})(?:\/(step|state|fork|evaluate))?$/;

const GenerateTasksRequest = z.object({
  dataset: z.string().min(1),
  limit: z.number().int().positive().max(100_000).optional(),
});

/**
 * The builtin worlds and tasks on the wall clock, with unguessable session ids. With a store,
 * accepted tasks and built worlds are saved there and come back on the next start (sessions do not:
 * they are in memory).
 */
export function createDefaultEnvService(
  limits?: Partial<SessionLimits>,
  store?: Store,
  /**
   * Benchmark files for the tool worlds; default: the upstream layout under the folder
   * `TERRARIUM_WORLD_DATA` names (e.g. ../shared/data), none when it is unset.
   */
  toolWorlds?: ToolWorldFiles,
): EnvService {
  const folder = process.env['TERRARIUM_WORLD_DATA'];
  const files = toolWorlds ?? (folder === undefined ? {} : toolWorldFilesIn(folder));
  return createEnvService({
    now: Date.now,
    newId: randomUUID,
    ...(limits === undefined ? {} : { limits }),
    ...(store === undefined ? {} : { persistence: storeEnvPersistence(store) }),
    runCode: sandboxCodeRunner(),
    loadWorlds: () => loadToolWorlds(files),
  });
}

/**
 * Code verifiers run where custom rubric rules run: the process's QuickJS worker pool, with the
 * check's own time and memory limits (a worker that overruns is replaced).
 */
export function sandboxCodeRunner(): CodeRunner {
  const run = sharedCustomRuleRunner();
  return (check, item) =>
    run(
      CustomRule.parse({
        id: 'task-verifier',
        type: 'custom',
        language: check.language,
        source: check.source,
        timeoutMs: check.timeoutMs,
        memoryMb: check.memoryMb,
      }),
      item,
    );
}

/** Whether the environment server (sessions, tasks, worlds, the OpenAPI document) answers this path. */
export function isEnvPath(pathname: string): boolean {
  return (
    pathname === ENV_OPENAPI_PATH ||
    pathname === '/v1/envs' ||
    pathname.startsWith('/v1/envs/') ||
    pathname === '/v1/tasks' ||
    pathname.startsWith('/v1/tasks/') ||
    pathname === '/v1/worlds'
  );
}

function sendSessionError(response: ServerResponse, error: SessionError): void {
  switch (error.error) {
    case 'full':
      // Back-pressure for new work only: admitted sessions keep being served.
      return sendJson(
        response,
        503,
        { error: { message: error.message } },
        {
          'retry-after': String(error.retryAfterSeconds),
        },
      );
    case 'not-found':
      return sendError(response, 404, error.message);
    case 'bad-request':
      return sendError(response, 400, error.message, [
        { field: error.field, message: error.message },
      ]);
    case 'conflict':
      return sendError(response, 409, error.message);
  }
}

/**
 * The body as JSON; for a step, a text/plain body is the action's text (`{action: text}`), as the
 * OpenAPI document says. Event-based rather than `for await`: on the step path, at thousands of
 * requests per second, the async iterator costs a visible share of the server's CPU.
 */
function readBody(request: IncomingMessage, textIsAction = false): Promise<unknown> {
  const plain = textIsAction && (request.headers['content-type'] ?? '').startsWith('text/plain');
  return new Promise((resolve, reject) => {
    const parts: Buffer[] = [];
    let size = 0;
    const limit = bodyLimits.get(request) ?? MAX_JSON_BODY_BYTES;
    request.on('data', (part: Buffer) => {
      size += part.length;
      if (size > limit) {
        request.removeAllListeners('data');
        request.resume();
        reject(new BodyError(`the request body exceeds ${limit} bytes`, 413));
        return;
      }
      parts.push(part);
    });
    request.on('error', reject);
    request.on('end', () => {
      const text =
        parts.length === 1 && parts[0]
          ? parts[0].toString('utf8')
          : Buffer.concat(parts).toString('utf8');
      if (plain) return resolve({ action: text });
      // Fork and evaluate take none: an empty body is no body.
      if (text.trim() === '') return resolve(undefined);
      try {
        resolve(JSON.parse(text));
      } catch (error) {
        reject(
          new BodyError(
            `the request body is not JSON: ${error instanceof Error ? error.message : String(error)}`,
            400,
          ),
        );
      }
    });
  });
}

/**
 * For a route that takes no body: answers 400 naming each field when the body has any, and says
 * whether it did. No body, or the `{}` clients send out of habit, passes; anything that is not an
 * object is the root field (`""`).
 */
async function refusedBody(
  request: IncomingMessage,
  response: ServerResponse,
  action: string,
  why: string,
): Promise<boolean> {
  const body = await readBody(request);
  if (body === undefined) return false;
  const fields =
    typeof body !== 'object' || body === null || Array.isArray(body) ? [''] : Object.keys(body);
  if (fields.length === 0) return false;
  sendError(
    response,
    400,
    `${action} takes no body: ${why}`,
    fields.map((field) => ({ field, message: `unknown field: ${action} takes no body` })),
  );
  return true;
}

/** The common step body, `{"action": "<text>"}`, without a trip through zod's union. */
function textStep(body: unknown): StepBody | null {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return null;
  if (!('action' in body) || typeof body.action !== 'string' || Object.keys(body).length !== 1)
    return null;
  return { action: body.action };
}

/**
 * A body the route's schema refused: 400 naming each field and its reason in the message too, as
 * `/v1/reward` does (walk 52: `bad environment request` left the field to `issues`, which the
 * Python example never printed).
 */
function sendIssues(response: ServerResponse, error: z.ZodError): void {
  const issues = fieldIssues(error);
  sendError(response, 400, issuesMessage(issues), issues);
}

function methodNotAllowed(request: IncomingMessage, response: ServerResponse, allow: string): void {
  request.resume();
  response.setHeader('allow', allow);
  sendError(response, 405, `${request.url ?? ''} answers ${allow}`);
}

// Services whose builtin tasks are in: later requests skip the await (a microtask turn each).
const readyServices = new WeakSet<EnvService>();

/** The plain HTTP environment server for RL trainers. Thin: the logic is in @terrarium/curriculum. */
export async function respondToEnv(
  request: IncomingMessage,
  response: ServerResponse,
  url: URL,
  env: EnvService,
  /** Where `POST /v1/tasks/generate` reads datasets from. */
  store?: Store,
  maxBodyBytes = MAX_JSON_BODY_BYTES,
): Promise<void> {
  bodyLimits.set(request, maxBodyBytes);
  try {
    if (!readyServices.has(env)) {
      await env.ready;
      readyServices.add(env);
    }
    await route(request, response, url, env, store);
  } catch (error) {
    if (error instanceof BodyError) return sendError(response, error.status, error.message);
    throw error;
  }
}

async function route(
  request: IncomingMessage,
  response: ServerResponse,
  url: URL,
  env: EnvService,
  store: Store | undefined,
): Promise<void> {
  const method = request.method ?? 'GET';
  const path = url.pathname;
  if (path === ENV_OPENAPI_PATH) {
    if (method !== 'GET') return methodNotAllowed(request, response, 'GET');
    return sendJson(response, 200, openApiDocument());
  }
  if (path === '/v1/worlds') {
    if (method !== 'GET') return methodNotAllowed(request, response, 'GET');
    return sendJson(response, 200, {
      worlds: env.worlds.list().map((world) => ({ id: world.id, description: world.description })),
    });
  }
  if (path === '/v1/tasks') return respondToTasks(request, response, env);
  if (path === '/v1/tasks/generate') {
    if (method !== 'POST') return methodNotAllowed(request, response, 'POST');
    const body = GenerateTasksRequest.safeParse(await readBody(request));
    if (!body.success) return sendIssues(response, body.error);
    if (store === undefined)
      return sendError(response, 409, 'this server has no store to read datasets from');
    const dataset = (await store.listDatasets()).find(
      (entry) => entry.id === body.data.dataset || entry.name === body.data.dataset,
    );
    if (dataset === undefined) {
      return sendError(response, 404, `no dataset ${body.data.dataset}`, [
        { field: 'dataset', message: 'unknown dataset' },
      ]);
    }
    // Only the first `limit` are read; tasks and worlds are keyed by store id (a dataset may hold
    // one source id twice), and each rejection also names the trajectory by its source id.
    const listed = (await listDatasetTrajectories(store, dataset.id)).slice(0, body.data.limit);
    const names = new Map(listed.map((summary) => [summary.id, summary.externalId]));
    const report = await addTrajectoryTasks(env, await loadListed(store, listed), dataset.name, {
      dataset: dataset.id,
      sourceIds: names,
    });
    return sendJson(response, 200, {
      accepted: report.accepted,
      rejected: report.rejected.map((entry) => ({
        ...entry,
        name: names.get(entry.trajectory) ?? entry.trajectory,
      })),
    });
  }
  if (path === '/v1/tasks/export' && method === 'POST') {
    // POST only, like generate: `GET`/`DELETE /v1/tasks/export` stay a task named `export`.
    const body = TaskExportRequest.safeParse(await readBody(request));
    if (!body.success) return sendIssues(response, body.error);
    const chosen = catalogTasks(env, body.data.tasks);
    if (chosen.ok && chosen.tasks.length > MAX_EXPORT_TASKS) {
      return sendError(
        response,
        400,
        `${chosen.tasks.length} tasks are served: export at most ${MAX_EXPORT_TASKS} a request, named in \`tasks\` (GET /v1/tasks lists them)`,
        [{ field: 'tasks', message: `at most ${MAX_EXPORT_TASKS} a request` }],
      );
    }
    if (!chosen.ok) {
      return sendError(response, 404, `no task ${chosen.missing.join(', ')}`, [
        { field: 'tasks', message: `unknown: ${chosen.missing.join(', ')}` },
      ]);
    }
    return sendJson(response, 200, exportTasks(chosen.tasks, body.data.format));
  }
  if (path.startsWith('/v1/tasks/')) {
    const id = decodeURIComponent(path.slice('/v1/tasks/'.length));
    if (method === 'DELETE') {
      request.resume();
      const removed = await env.tasks.remove(id);
      if (removed === 'missing') return sendError(response, 404, `no task ${id}`);
      if (removed === 'builtin') {
        return sendError(response, 409, `task ${id} is built in: it comes back with every start`);
      }
      response.statusCode = 204;
      response.end();
      return;
    }
    if (method !== 'GET') return methodNotAllowed(request, response, 'GET, DELETE');
    const task = env.tasks.get(id);
    return task === undefined
      ? sendError(response, 404, `no task ${id}`)
      : sendJson(response, 200, task);
  }
  if (path === '/v1/envs') {
    if (method === 'GET') {
      request.resume();
      env.sessions.sweep();
      return sendJson(response, 200, { sessions: env.sessions.size, limits: env.sessions.limits });
    }
    if (method !== 'POST') return methodNotAllowed(request, response, 'GET, POST');
    const body = CreateEnvRequest.safeParse(await readBody(request));
    if (!body.success) return sendIssues(response, body.error);
    const opened = await env.sessions.create(body.data);
    return isSessionError(opened)
      ? sendSessionError(response, opened)
      : sendJson(response, 201, opened);
  }
  const match = SESSION_ROUTE.exec(path);
  if (match === null) {
    request.resume();
    return sendError(response, 404, `no environment route ${path}`);
  }
  const id = match[1] ?? '';
  const action = match[2];
  const answer = (value: unknown, status = 200): void =>
    isSessionError(value) ? sendSessionError(response, value) : sendJson(response, status, value);
  switch (action) {
    case undefined:
      if (method !== 'DELETE') return methodNotAllowed(request, response, 'DELETE');
      request.resume();
      if (!env.sessions.close(id)) return sendError(response, 404, `no session ${id}`);
      response.writeHead(204).end();
      return;
    case 'state':
      if (method !== 'GET') return methodNotAllowed(request, response, 'GET');
      return answer(await env.sessions.state(id));
    case 'step': {
      if (method !== 'POST') return methodNotAllowed(request, response, 'POST');
      const raw = await readBody(request, true);
      const fast = textStep(raw);
      const body =
        fast === null ? StepEnvRequest.safeParse(raw) : { success: true as const, data: fast };
      // The union's own issue names no field; every shape it accepts carries the action.
      if (!body.success) {
        const extras = stepBodyExtras(raw);
        return sendError(
          response,
          400,
          'bad step: send {"action": text | tool call}',
          extras.length > 0
            ? extras.map((field) => ({
                field,
                message: 'unknown field: a step takes the action alone',
              }))
            : [
                {
                  field: 'action',
                  message:
                    'a shell line, or an OpenAI tool call {"function": {"name", "arguments"}}',
                },
              ],
        );
      }
      const world = env.sessions.worldOf(id);
      if (isSessionError(world)) return sendSessionError(response, world);
      return answer(await env.sessions.step(id, moveFromRequest(world, body.data)));
    }
    case 'fork':
      if (method !== 'POST') return methodNotAllowed(request, response, 'POST');
      if (await refusedBody(request, response, 'fork', 'it copies the session as it is')) return;
      return answer(await env.sessions.fork(id), 201);
    case 'evaluate':
      if (method !== 'POST') return methodNotAllowed(request, response, 'POST');
      if (
        await refusedBody(
          request,
          response,
          'evaluate',
          'it scores the world as it is; an answer is a step (`submit ANSWER`)',
        )
      )
        return;
      return answer(await env.sessions.evaluate(id));
    default:
      request.resume();
      return sendError(response, 404, `no environment route ${path}`);
  }
}

async function respondToTasks(
  request: IncomingMessage,
  response: ServerResponse,
  env: EnvService,
): Promise<void> {
  if (request.method === 'GET') {
    request.resume();
    return sendJson(response, 200, {
      tasks: env.tasks.list().map((task) => ({
        id: task.id,
        goal: task.goal,
        world: task.world.id,
        provenance: task.provenance,
      })),
    });
  }
  if (request.method !== 'POST') return methodNotAllowed(request, response, 'GET, POST');
  const body = Task.safeParse(await readBody(request));
  if (!body.success) return sendIssues(response, body.error);
  const world = env.worlds.get(body.data.world.id);
  if (world === undefined)
    return sendError(response, 400, `no world ${body.data.world.id}`, [
      { field: 'world.id', message: 'unknown world' },
    ]);
  // Checked here, not first at a session: a task whose world would ignore its params is not the
  // task its author wrote, and its gates would pass on the wrong world.
  const wrong = worldParamsProblem(world, body.data.world.params);
  if (wrong !== null)
    return sendError(response, 400, `world.params.${wrong}`, [
      { field: `world.params.${wrong.slice(0, wrong.indexOf(':'))}`, message: wrong },
    ]);
  const added = await env.tasks.add(body.data);
  // 409: the id is another task's; 422: well-formed, but the gates refused it (the report says
  // which and why).
  const status = added.accepted ? 201 : 'conflict' in added ? 409 : 422;
  return sendJson(response, status, {
    accepted: added.accepted,
    report: added.report,
  });
}
