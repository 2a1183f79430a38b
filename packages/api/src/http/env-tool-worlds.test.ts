import { createServer, type Server } from 'node:http';
import type { Store } from '@terrarium/db';
import { openMemoryStore } from '@terrarium/db/test-store';
import { sharedDataPath } from '@terrarium/schema/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createApiRequestHandler } from './api-routes';
import { createDefaultEnvService } from './env-routes';
import type { ToolWorldFiles } from './env-routes-tool-worlds';

const TOKEN = 'env-tool-worlds-token-0123456789';
const FILES: ToolWorldFiles = {
  airline: {
    users: sharedDataPath('tau-bench-v1/envs/airline/data/users.json'),
    reservations: sharedDataPath('tau-bench-v1/envs/airline/data/reservations.json'),
    flights: sharedDataPath('tau-bench-v1/envs/airline/data/flights.json'),
    trajectories: [sharedDataPath('tau-bench-v1/historical_trajectories/gpt-4o-airline.json')],
  },
  retail: {
    db: sharedDataPath('tau2-bench/domains/retail/db.json'),
    trajectories: [
      sharedDataPath('tau2-bench/results/gpt-4.1_retail_defautl_gpt-4.1_1trials.json'),
    ],
  },
  telecom: {
    db: sharedDataPath('tau2-bench/domains/telecom/db.toml'),
    trajectories: [
      sharedDataPath('tau2-bench/results/gpt-4.1_telecom_default_gpt-4.1_1trials.json'),
    ],
  },
};

const Opened = z.object({
  id: z.string(),
  tools: z.array(z.object({ function: z.object({ name: z.string() }) })),
});
const Stepped = z.object({ observation: z.string(), reward: z.number(), terminated: z.boolean() });
function toolCall(name: string, args: unknown) {
  return { action: { type: 'function', function: { name, arguments: JSON.stringify(args) } } };
}

const Order = z.object({ status: z.string(), cancel_reason: z.string().nullable() });

/** Tool worlds served over real HTTP: an RL trainer calls the benchmark's tools by name. */
describe('tool worlds on the environment server (tau-bench airline, tau2 retail and telecom)', () => {
  let store: Store;
  let server: Server;
  let url: string;
  beforeAll(async () => {
    store = await openMemoryStore();
    const env = createDefaultEnvService(undefined, store, FILES);
    // Loading the benchmark files and learning the read tools happens once, at start.
    await env.ready;
    const answer = createApiRequestHandler({
      store,
      token: TOKEN,
      allowedHosts: ['127.0.0.1'],
      env,
    });
    server = createServer((request, response) => {
      if (!answer(request, response)) response.writeHead(404).end();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const address = server.address();
    if (address === null || typeof address === 'string') throw new Error('no TCP port');
    url = `http://127.0.0.1:${address.port}`;
  }, 120_000);
  afterAll(async () => {
    await new Promise((resolve) => {
      server.close(resolve);
      server.closeAllConnections();
    });
    await store.close();
  });

  async function call(method: string, route: string, body?: unknown) {
    const response = await fetch(`${url}${route}`, {
      method,
      headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    return { status: response.status, json: await response.json() };
  }

  it('lists the worlds and offers each its tools, inferred from the recorded runs, plus submit', async () => {
    const listed = z
      .object({ worlds: z.array(z.object({ id: z.string() })) })
      .parse((await call('GET', '/v1/worlds')).json);
    expect(listed.worlds.map((world) => world.id)).toEqual([
      'scratch',
      'tau-bench-airline',
      'tau2-retail',
      'tau2-telecom',
    ]);
    const telecom = Opened.parse((await call('POST', '/v1/envs', { world: 'tau2-telecom' })).json);
    const names = telecom.tools.map((tool) => tool.function.name);
    expect(names).toContain('get_details_by_id');
    expect(names.some((name) => name.startsWith('init:') || name === 'toggle_airplane_mode')).toBe(
      false,
    );
    expect(names.at(-1)).toBe('submit');
  });

  it('a cancellation over HTTP changes what the next read returns; the fork does not see it', async () => {
    const opened = Opened.parse((await call('POST', '/v1/envs', { world: 'tau2-retail' })).json);
    expect(opened.tools.map((tool) => tool.function.name)).toContain('cancel_pending_order');
    const read = async (id: string) =>
      Order.parse(
        JSON.parse(
          Stepped.parse(
            (
              await call(
                'POST',
                `/v1/envs/${id}/step`,
                toolCall('get_order_details', { order_id: '#W4836353' }),
              )
            ).json,
          ).observation,
        ),
      );
    expect((await read(opened.id)).status).toBe('pending');
    const fork = z
      .object({ id: z.string() })
      .parse((await call('POST', `/v1/envs/${opened.id}/fork`)).json);
    const cancelled = Stepped.parse(
      (
        await call(
          'POST',
          `/v1/envs/${opened.id}/step`,
          toolCall('cancel_pending_order', { order_id: '#W4836353', reason: 'no longer needed' }),
        )
      ).json,
    );
    expect(Order.parse(JSON.parse(cancelled.observation))).toEqual({
      status: 'cancelled',
      cancel_reason: 'no longer needed',
    });
    expect(await read(opened.id)).toEqual({
      status: 'cancelled',
      cancel_reason: 'no longer needed',
    });
    expect((await read(fork.id)).status).toBe('pending');
  });

  it('accepts a task on a tool world whose verifier checks the final record, and solves it to 1', async () => {
    const task = {
      id: 'retail.cancel-W4836353',
      goal: 'Cancel order #W4836353 (no longer needed), then submit.',
      world: { id: 'tau2-retail', params: {} },
      verifier: {
        checks: [
          {
            check: {
              kind: 'record-equals',
              table: 'orders',
              key: '#W4836353',
              field: ['status'],
              expected: 'cancelled',
            },
          },
          {
            check: {
              kind: 'record-equals',
              table: 'orders',
              key: '#W4836353',
              field: ['cancel_reason'],
              expected: 'no longer needed',
            },
          },
        ],
      },
      oracle: [
        {
          tool: 'cancel_pending_order',
          arguments: { order_id: '#W4836353', reason: 'no longer needed' },
        },
        'submit',
      ],
      noop: [{ tool: 'get_order_details', arguments: { order_id: '#W4836353' } }],
      provenance: { source: 'tau2-bench/retail', trajectory: null, steps: [] },
    };
    const added = await call('POST', '/v1/tasks', task);
    expect([added.status, added.json]).toMatchObject([201, { accepted: true }]);
    const opened = Opened.parse((await call('POST', '/v1/envs', { task: task.id })).json);
    // Raw text works too: `name {json}`.
    await call('POST', `/v1/envs/${opened.id}/step`, {
      action: 'cancel_pending_order {"order_id": "#W4836353", "reason": "no longer needed"}',
    });
    const done = Stepped.parse(
      (await call('POST', `/v1/envs/${opened.id}/step`, { action: 'submit' })).json,
    );
    expect([done.reward, done.terminated]).toEqual([1, true]);
  });

  it('refuses params a tool world would ignore, for a session and for a task', async () => {
    // Walk 43: `params: {"x": 1}` opened an ordinary airline world; the caller got another
    // world than the one asked for, without a word.
    const session = await call('POST', '/v1/envs', {
      world: 'tau-bench-airline',
      params: { x: 1 },
    });
    expect([session.status, session.json]).toEqual([
      400,
      {
        error: {
          message: 'params.x: the world tau-bench-airline takes no parameters',
          issues: [
            {
              field: 'params.x',
              message: 'params.x: the world tau-bench-airline takes no parameters',
            },
          ],
        },
      },
    ]);
    const task = await call('POST', '/v1/tasks', {
      id: 'retail.with-params',
      goal: 'Submit.',
      world: { id: 'tau2-retail', params: { noise: 0.2 } },
      verifier: { checks: [{ check: { kind: 'answer-equals', expected: 'done' } }] },
      oracle: ['submit done'],
      noop: ['submit'],
      provenance: { source: 'tau2-bench/retail', trajectory: null, steps: [] },
    });
    expect([task.status, task.json]).toEqual([
      400,
      {
        error: {
          message: 'world.params.noise: the world tau2-retail takes no parameters',
          issues: [
            {
              field: 'world.params.noise',
              message: 'noise: the world tau2-retail takes no parameters',
            },
          ],
        },
      },
    ]);
  });
});
