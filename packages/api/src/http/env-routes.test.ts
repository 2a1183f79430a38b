import { createServer, type Server } from 'node:http';
import type { Store } from '@terrarium/db';
import { openMemoryStore } from '@terrarium/db/test-store';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiRequestHandler } from './api-routes';
import { createDefaultEnvService } from './env-routes';

const TOKEN = 'env-test-token-0123456789';

/** The environment server over real HTTP on 127.0.0.1 behind the real gate (bearer token). */
describe('/v1/envs (environment server)', () => {
  let store: Store;
  let server: Server;
  let url: string;
  const auth = { authorization: `Bearer ${TOKEN}` };

  beforeAll(async () => {
    store = await openMemoryStore();
    const answer = createApiRequestHandler({
      store,
      token: TOKEN,
      allowedHosts: ['127.0.0.1'],
      env: createDefaultEnvService({ maxSessions: 6, retryAfterSeconds: 2 }),
    });
    server = createServer((request, response) => {
      if (!answer(request, response)) response.writeHead(404).end();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const address = server.address();
    if (address === null || typeof address === 'string') throw new Error('no TCP port');
    url = `http://127.0.0.1:${address.port}`;
  }, 60_000);
  afterAll(async () => {
    await new Promise((resolve) => {
      server.close(resolve);
      server.closeAllConnections();
    });
    await store.close();
  });

  async function call(
    method: string,
    path: string,
    body?: unknown,
  ): Promise<{ status: number; json: unknown; headers: Headers }> {
    const response = await fetch(`${url}${path}`, {
      method,
      headers: { ...auth, 'content-type': 'application/json' },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await response.text();
    return {
      status: response.status,
      json: text === '' ? null : JSON.parse(text),
      headers: response.headers,
    };
  }

  async function open(body: unknown): Promise<string> {
    const { status, json } = await call('POST', '/v1/envs', body);
    expect(status).toBe(201);
    if (
      typeof json !== 'object' ||
      json === null ||
      !('id' in json) ||
      typeof json.id !== 'string'
    ) {
      throw new Error(`no id in ${JSON.stringify(json)}`);
    }
    return json.id;
  }

  it('refuses callers without the program token', async () => {
    const response = await fetch(`${url}/v1/envs`, { method: 'POST', body: '{"world":"scratch"}' });
    expect(response.status).toBe(401);
  });

  it('plays a task: text, OpenAI tool calls and text/plain steps, submit, evaluate, state, delete', async () => {
    const created = await call('POST', '/v1/envs', { task: 'scratch-last-line', seed: 1 });
    expect(created.status).toBe(201);
    expect(created.json).toMatchObject({
      observation: '',
      tools: [
        { type: 'function', function: { name: 'bash', parameters: { required: ['command'] } } },
        { type: 'function', function: { name: 'submit' } },
      ],
      info: { task: 'scratch-last-line', world: 'scratch', seed: 1, maxSteps: 30 },
    });
    const id = await open({ task: 'scratch-last-line' });
    expect(
      (await call('POST', `/v1/envs/${id}/step`, { action: 'cat /data/notes.txt' })).json,
    ).toEqual({
      observation: 'alpha\nbravo\ncharlie\n',
      reward: 0,
      terminated: false,
      truncated: false,
      info: { steps: 1, exitCode: 0, provenance: 'executed' },
    });
    const toolCall = {
      id: 'call_1',
      type: 'function',
      function: {
        name: 'bash',
        arguments: JSON.stringify({ command: 'echo charlie > /data/last.txt' }),
      },
    };
    expect((await call('POST', `/v1/envs/${id}/step`, { action: toolCall })).json).toMatchObject({
      observation: '',
      reward: 0,
    });
    const plain = await fetch(`${url}/v1/envs/${id}/step`, {
      method: 'POST',
      headers: { ...auth, 'content-type': 'text/plain' },
      body: 'cat /data/last.txt',
    });
    expect(await plain.json()).toMatchObject({ observation: 'charlie\n' });
    expect((await call('POST', `/v1/envs/${id}/evaluate`)).json).toEqual({
      reward: 1,
      passed: true,
      breakdown: [
        {
          name: 'file /data/last.txt has the expected content',
          weight: 1,
          passed: true,
          detail: '',
        },
      ],
    });
    const done = await call('POST', `/v1/envs/${id}/step`, {
      tool_call: { function: { name: 'submit', arguments: '{}' } },
    });
    expect(done.json).toMatchObject({
      reward: 1,
      terminated: true,
      truncated: false,
      info: { steps: 4 },
    });
    expect((await call('POST', `/v1/envs/${id}/step`, { action: 'ls' })).status).toBe(409);
    // A fork of the ended episode could not step, and would hold a slot.
    expect((await call('POST', `/v1/envs/${id}/fork`)).json).toEqual({
      error: { message: 'the episode is over; fork a session before it ends' },
    });
    expect((await call('GET', `/v1/envs/${id}/state`)).json).toMatchObject({
      steps: 4,
      terminated: true,
      worldState: { files: 5, cwd: '/' },
    });
    expect((await call('DELETE', `/v1/envs/${id}`)).status).toBe(204);
    expect((await call('GET', `/v1/envs/${id}/state`)).status).toBe(404);
    expect(
      (
        await call(
          'DELETE',
          `/v1/envs/${created.json && typeof created.json === 'object' && 'id' in created.json ? String(created.json.id) : ''}`,
        )
      ).status,
    ).toBe(204);
  });

  it('refuses world parameters the world does not take, naming the one at fault', async () => {
    const refused = async (params: unknown) => {
      const { status, json } = await call('POST', '/v1/envs', { world: 'scratch', params });
      expect(status).toBe(400);
      return JSON.stringify(json).match(/"message":"([^"]*)"/)?.[1];
    };
    expect(await refused({ files: -5 })).toBe(
      'params.files: a whole number from 0 to 1000, got -5',
    );
    expect(await refused({ files: 5000 })).toBe(
      'params.files: a whole number from 0 to 1000, got 5000',
    );
    expect(await refused({ nonsense: 1 })).toBe(
      'params.nonsense: not a parameter of the scratch world (it takes files and extra)',
    );
    expect(await refused({ extra: { 'notes.txt': 'x' } })).toBe(
      'params.extra: notes.txt is not an absolute path',
    );
    // In the shape of every other 400: the field in `issues` (walk 47: these had none).
    const negative = await call('POST', '/v1/envs', { world: 'scratch', params: { files: -5 } });
    expect({ status: negative.status, json: negative.json }).toEqual({
      status: 400,
      json: {
        error: {
          message: 'params.files: a whole number from 0 to 1000, got -5',
          issues: [
            {
              field: 'params.files',
              message: 'params.files: a whole number from 0 to 1000, got -5',
            },
          ],
        },
      },
    });
    // A session still opens with the parameters it takes (and is closed: the server's limit is
    // small, for the test of a full server).
    const id = await open({ world: 'scratch', params: { files: 0, extra: { '/a.txt': 'a\n' } } });
    expect((await call('DELETE', `/v1/envs/${id}`)).status).toBe(204);
  });

  it('forks over HTTP: the fork and a second fork continue identically', async () => {
    const id = await open({ world: 'scratch', params: { files: 4 }, seed: 9 });
    await call('POST', `/v1/envs/${id}/step`, { action: 'echo base > /w.txt' });
    const forks = [
      await call('POST', `/v1/envs/${id}/fork`),
      await call('POST', `/v1/envs/${id}/fork`),
    ];
    const ids = forks.map((fork) =>
      fork.json && typeof fork.json === 'object' && 'id' in fork.json ? String(fork.json.id) : '',
    );
    const script = [
      'echo more >> /w.txt',
      'cat /w.txt /data/file-2.txt',
      'rm /data/file-1.txt',
      'ls /data',
    ];
    const seen: unknown[][] = [];
    for (const forkId of ids) {
      const outputs: unknown[] = [];
      for (const action of script)
        outputs.push((await call('POST', `/v1/envs/${forkId}/step`, { action })).json);
      seen.push(outputs);
    }
    expect(seen[1]).toEqual(seen[0]);
    expect(seen[0]?.[3]).toMatchObject({ observation: 'file-0.txt\nfile-2.txt\nfile-3.txt\n' });
    expect(
      (await call('POST', `/v1/envs/${id}/step`, { action: 'cat /w.txt' })).json,
    ).toMatchObject({ observation: 'base\n' });
    for (const sessionId of [id, ...ids])
      expect((await call('DELETE', `/v1/envs/${sessionId}`)).status).toBe(204);
  });

  it('refuses a body where fork and evaluate take none, and text where a route takes JSON', async () => {
    const id = await open({ task: 'scratch-last-line', seed: 1 });
    // An answer sent to evaluate was scored as if never sent: it is said instead.
    expect(await call('POST', `/v1/envs/${id}/evaluate`, { answer: 42 })).toMatchObject({
      status: 400,
      json: {
        error: {
          message:
            'evaluate takes no body: it scores the world as it is; an answer is a step (`submit ANSWER`)',
          issues: [{ field: 'answer', message: 'unknown field: evaluate takes no body' }],
        },
      },
    });
    expect(await call('POST', `/v1/envs/${id}/fork`, { x: 1 })).toMatchObject({
      status: 400,
      json: { error: { issues: [{ field: 'x' }] } },
    });
    // No body, or the empty object clients send out of habit, is fine.
    expect((await call('POST', `/v1/envs/${id}/evaluate`)).status).toBe(200);
    const fork = await call('POST', `/v1/envs/${id}/fork`, {});
    expect(fork.status).toBe(201);
    // text/plain is a step's action alone: elsewhere it is read as the JSON it should be.
    const text = await fetch(`${url}/v1/envs`, {
      method: 'POST',
      headers: { ...auth, 'content-type': 'text/plain' },
      body: 'x',
    });
    expect(text.status).toBe(400);
    expect(await text.json()).toMatchObject({
      error: { message: expect.stringMatching(/^the request body is not JSON: /) },
    });
    const forkId =
      fork.json && typeof fork.json === 'object' && 'id' in fork.json ? fork.json.id : '';
    for (const sessionId of [id, String(forkId)])
      expect((await call('DELETE', `/v1/envs/${sessionId}`)).status).toBe(204);
  });

  it('answers 503 with Retry-After when full, while admitted sessions keep stepping', async () => {
    const ids: string[] = [];
    for (let i = 0; i < 6; i += 1) ids.push(await open({ world: 'scratch' }));
    const refused = await call('POST', '/v1/envs', { world: 'scratch' });
    expect(refused.status).toBe(503);
    expect(refused.headers.get('retry-after')).toBe('2');
    expect((await call('POST', `/v1/envs/${ids[0] ?? ''}/fork`)).status).toBe(503);
    const steps = await Promise.all(
      ids.map((id) => call('POST', `/v1/envs/${id}/step`, { action: 'echo ok' })),
    );
    expect(
      steps.map((step) => [
        step.status,
        step.json && typeof step.json === 'object' && 'observation' in step.json
          ? step.json.observation
          : null,
      ]),
    ).toEqual(ids.map(() => [200, 'ok\n']));
    await call('DELETE', `/v1/envs/${ids[0] ?? ''}`);
    const admitted = await call('POST', '/v1/envs', { world: 'scratch' });
    expect(admitted.status).toBe(201);
    const rest = [
      ...ids.slice(1),
      admitted.json && typeof admitted.json === 'object' && 'id' in admitted.json
        ? String(admitted.json.id)
        : '',
    ];
    for (const id of rest) await call('DELETE', `/v1/envs/${id}`);
  });

  it('names the bad field, and refuses a task the gates reject with the reason', async () => {
    // The message names the field as `issues` does (walk 52: `bad environment request` alone
    // reached a client that prints the message).
    const bad = await call('POST', '/v1/envs', { task: 'scratch-last-line', seed: -1 });
    expect([bad.status, bad.json]).toEqual([
      400,
      {
        error: {
          message: 'seed: Too small: expected number to be >=0',
          issues: [{ field: 'seed', message: 'Too small: expected number to be >=0' }],
        },
      },
    ]);
    // Above 2^53 a seed breaks two bounds; the tighter one alone is named.
    const huge = await call('POST', '/v1/envs', { world: 'scratch', seed: 1e20 });
    expect(huge.json).toEqual({
      error: {
        message: 'seed: Too big: expected number to be <=4294967295',
        issues: [{ field: 'seed', message: 'Too big: expected number to be <=4294967295' }],
      },
    });
    // A body that is no object is the body's fault, said so.
    expect((await call('POST', '/v1/envs', [1])).json).toEqual({
      error: {
        message: 'body: Invalid input: expected object, received array',
        issues: [{ field: '', message: 'Invalid input: expected object, received array' }],
      },
    });
    // A misspelt setting is refused by name, not ignored; a task with a world is ambiguous.
    const misspelt = await call('POST', '/v1/envs', { task: 'scratch-last-line', maxstep: 5 });
    expect(misspelt.status).toBe(400);
    expect(misspelt.json).toMatchObject({
      error: { issues: [{ field: 'maxstep', message: 'unknown field' }] },
    });
    const both = await call('POST', '/v1/envs', { task: 'scratch-last-line', world: 'nope' });
    expect(both.json).toMatchObject({
      error: {
        issues: [
          {
            field: 'world',
            message: 'a task brings its own world: name a task or a world, not both',
          },
        ],
      },
    });
    const id = await open({ task: 'scratch-last-line' });
    for (const body of [{}, { action: 42 }]) {
      const step = await call('POST', `/v1/envs/${id}/step`, body);
      expect(step.status).toBe(400);
      expect(step.json).toMatchObject({ error: { issues: [{ field: 'action' }] } });
    }
    // Two actions, or a setting beside the action, would be half ignored: refused by name.
    const twoActions = await call('POST', `/v1/envs/${id}/step`, {
      action: 'ls',
      tool_call: { function: { name: 'bash', arguments: '{"command": "pwd"}' } },
    });
    expect(twoActions.status).toBe(400);
    expect(twoActions.json).toMatchObject({
      error: {
        issues: [{ field: 'tool_call', message: 'unknown field: a step takes the action alone' }],
      },
    });
    const extra = await call('POST', `/v1/envs/${id}/step`, { action: 'ls', seed: 3 });
    expect(extra.json).toMatchObject({ error: { issues: [{ field: 'seed' }] } });
    // A bare tool call keeps what its SDK put beside it (a streamed call's `index`).
    const streamed = await call('POST', `/v1/envs/${id}/step`, {
      index: 0,
      id: 'call_1',
      type: 'function',
      function: { name: 'bash', arguments: '{"command": "pwd"}' },
    });
    expect(streamed.status).toBe(200);
    // A policy's malformed move is answered, not refused: the episode goes on and it costs a step.
    const unknownTool = await call('POST', `/v1/envs/${id}/step`, {
      type: 'function',
      function: { name: 'python', arguments: '{"code": "print(3)"}' },
    });
    expect(unknownTool.status).toBe(200);
    expect(unknownTool.json).toMatchObject({
      observation: 'invalid move: unknown tool python; use bash or submit',
      reward: 0,
      terminated: false,
      info: { invalid: 'unknown tool python; use bash or submit' },
    });
    const notJson = await call('POST', `/v1/envs/${id}/step`, {
      type: 'function',
      function: { name: 'bash', arguments: '{"command": ' },
    });
    expect(notJson.json).toMatchObject({
      observation: 'invalid move: the arguments of bash are not JSON',
    });
    const lazy = await call('POST', '/v1/tasks', {
      id: 'lazy-task',
      goal: 'Remove nothing.',
      world: { id: 'scratch' },
      verifier: { checks: [{ check: { kind: 'file-exists', path: '/nope', exists: false } }] },
      oracle: ['true'],
      provenance: { source: 'test', trajectory: null, steps: [] },
    });
    expect(lazy.status).toBe(422);
    expect(lazy.json).toMatchObject({
      accepted: false,
      report: {
        reasons: [
          'the empty solution passes the verifier (reward 1.00; passing: file /nope does not exist)',
          'the no-op solution (["true"]) passes the verifier (reward 1.00; passing: file /nope does not exist)',
          'the initial world passes the verifier (reward 1.00; passing: file /nope does not exist)',
        ],
      },
    });
    expect((await call('GET', '/v1/tasks/lazy-task')).status).toBe(404);
    const makeFile = {
      id: 'make-file',
      goal: 'Create /made.txt containing "made".',
      world: { id: 'scratch' },
      verifier: {
        checks: [{ check: { kind: 'file-equals', path: '/made.txt', content: 'made\n' } }],
      },
      oracle: ['echo made > /made.txt'],
      provenance: { source: 'test', trajectory: null, steps: [] },
    };
    const good = await call('POST', '/v1/tasks', makeFile);
    expect(good.status).toBe(201);
    // The same task again is accepted (adding is idempotent); another task under a taken id, a
    // built-in one's included, is refused: one id is one task for every session and curriculum.
    expect((await call('POST', '/v1/tasks', makeFile)).status).toBe(201);
    const clash = await call('POST', '/v1/tasks', { ...makeFile, goal: 'Something else.' });
    expect(clash.status).toBe(409);
    expect(clash.json).toMatchObject({
      accepted: false,
      report: { reasons: ['task id make-file is taken by a different task: choose another id'] },
    });
    // The limits a session has hold for a task too: no step budget a session could not take.
    const endless = await call('POST', '/v1/tasks', {
      ...makeFile,
      id: 'x'.repeat(257),
      maxSteps: 10 ** 15,
    });
    expect([endless.status, endless.json]).toEqual([
      400,
      {
        error: {
          message:
            'id: Too big: expected string to have <=256 characters; maxSteps: Too big: expected number to be <=100000',
          issues: [
            { field: 'id', message: 'Too big: expected string to have <=256 characters' },
            { field: 'maxSteps', message: 'Too big: expected number to be <=100000' },
          ],
        },
      },
    ]);
    const generate = await call('POST', '/v1/tasks/generate', { dataset: '', limit: 0 });
    expect([generate.status, generate.json]).toEqual([
      400,
      {
        error: {
          message:
            'dataset: Too small: expected string to have >=1 characters; limit: Too small: expected number to be >0',
          issues: [
            { field: 'dataset', message: 'Too small: expected string to have >=1 characters' },
            { field: 'limit', message: 'Too small: expected number to be >0' },
          ],
        },
      },
    ]);
    const hijack = await call('POST', '/v1/tasks', { ...makeFile, id: 'scratch-last-line' });
    expect(hijack.status).toBe(409);
    expect(hijack.json).toMatchObject({
      report: {
        reasons: [
          'task id scratch-last-line is taken by a different built-in task: choose another id',
        ],
      },
    });
    expect((await call('GET', '/v1/tasks/scratch-last-line')).json).toMatchObject({
      goal: expect.stringContaining('last line'),
    });
    expect((await call('GET', '/v1/tasks')).json).toMatchObject({
      tasks: [{ id: 'scratch-last-line' }, { id: 'scratch-count-lines' }, { id: 'make-file' }],
    });
    // What GET /v1/tasks lists, an export writes: the added task with the builtin ones.
    const all = await call('POST', '/v1/tasks/export', { format: 'harbor' });
    expect(all.status).toBe(200);
    expect(all.json).toMatchObject({
      format: 'harbor',
      exported: ['scratch-last-line', 'scratch-count-lines', 'make-file'],
      rejected: [],
    });
    const one = await call('POST', '/v1/tasks/export', { format: 'jsonl', tasks: ['make-file'] });
    expect(one.json).toMatchObject({ format: 'jsonl', exported: ['make-file'], rejected: [] });
    expect(JSON.stringify(one.json)).toContain('Create /made.txt containing');
    const unknown = await call('POST', '/v1/tasks/export', { format: 'jsonl', tasks: ['nope'] });
    expect([unknown.status, unknown.json]).toEqual([
      404,
      {
        error: {
          message: 'no task nope',
          issues: [{ field: 'tasks', message: 'unknown: nope' }],
        },
      },
    ]);
    expect(await call('POST', '/v1/tasks/export', { format: 'csv' })).toMatchObject({
      status: 400,
      json: {
        error: {
          message: 'format: Invalid option: expected one of "jsonl"|"harbor"',
          issues: [
            { field: 'format', message: 'Invalid option: expected one of "jsonl"|"harbor"' },
          ],
        },
      },
    });
    // `export` is a verb only for POST: a task of that id is read as any other.
    expect((await call('GET', '/v1/tasks/export')).json).toEqual({
      error: { message: 'no task export' },
    });
  });

  it('serves the OpenAPI document describing every environment route', async () => {
    const { status, json } = await call('GET', '/v1/openapi.json');
    expect(status).toBe(200);
    expect(json).toMatchObject({
      openapi: '3.1.0',
      components: { securitySchemes: { bearer: { scheme: 'bearer' } } },
    });
    const paths =
      json &&
      typeof json === 'object' &&
      'paths' in json &&
      json.paths &&
      typeof json.paths === 'object'
        ? Object.keys(json.paths)
        : [];
    // Other plain-HTTP APIs (the reward service) add their own paths to the same document.
    const envPaths = paths.filter((path) => /^\/v1\/(envs|tasks|worlds)/.test(path));
    expect(envPaths).toEqual([
      '/v1/envs',
      '/v1/envs/{id}',
      '/v1/envs/{id}/step',
      '/v1/envs/{id}/state',
      '/v1/envs/{id}/fork',
      '/v1/envs/{id}/evaluate',
      '/v1/tasks',
      '/v1/tasks/export',
      '/v1/tasks/generate',
      '/v1/tasks/{id}',
      '/v1/worlds',
    ]);
    // The reward service and the simulators are described in the same document.
    expect(paths.filter((path) => !envPaths.includes(path))).toEqual([
      '/v1/reward',
      '/v1/reward/openrlhf',
      '/v1/chat/completions',
      '/v1/models',
      '/api/simulate',
    ]);
    expect(json).toMatchObject({
      components: {
        schemas: {
          ChatCompletionRequest: { required: ['model', 'messages'] },
          SimulateParams: { required: ['dataset', 'sim'] },
        },
      },
    });
  });
});
