import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkEndpoint, modelsUrl } from './endpoint-health';

const ALLOWLIST = ['127.0.0.1'];

/** A real HTTP server on 127.0.0.1: `/v1/models` lists one model, `/slow/v1/models` never answers. */
let server: Server;
let origin: string;

beforeAll(async () => {
  server = createServer((request, response) => {
    if (request.url === '/v1/models') {
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(JSON.stringify({ object: 'list', data: [{ id: 'wm-7b', object: 'model' }] }));
    } else if (request.url === '/broken/v1/models') {
      response.writeHead(503, { 'content-type': 'application/json' });
      response.end('{"error":{"message":"loading"}}');
    }
    // Anything else is left hanging, like an endpoint that accepted the connection and stalled.
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('no TCP port');
  origin = `http://127.0.0.1:${(address satisfies AddressInfo).port}`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

describe('modelsUrl', () => {
  it('appends /v1/models, or /models after a base that ends in /v1', () => {
    expect(modelsUrl('http://h:8000')).toBe('http://h:8000/v1/models');
    expect(modelsUrl('http://h:8000/v1/')).toBe('http://h:8000/v1/models');
  });
});

describe('checkEndpoint', () => {
  const options = { allowlist: ALLOWLIST, fetch };

  it('reports an endpoint that lists its models as up, and whether the model is there', async () => {
    const health = await checkEndpoint(`${origin}/v1`, 'wm-7b', options);
    expect(health).toMatchObject({
      status: 'up',
      httpStatus: 200,
      models: ['wm-7b'],
      modelListed: true,
      message: null,
    });
    expect((await checkEndpoint(origin, 'other', options)).modelListed).toBe(false);
  });

  it('reports a non-2xx answer as down with its status', async () => {
    const health = await checkEndpoint(`${origin}/broken`, 'wm-7b', options);
    expect(health).toMatchObject({
      status: 'down',
      httpStatus: 503,
      message: 'GET /models answered 503',
    });
  });

  it('gives up on an endpoint that does not answer within the timeout', async () => {
    const health = await checkEndpoint(`${origin}/slow`, 'wm-7b', { ...options, timeoutMs: 200 });
    expect(health).toMatchObject({
      status: 'down',
      httpStatus: null,
      message: 'no answer in time',
    });
  });

  it('never contacts a host outside the allowlist', async () => {
    let contacted = false;
    const health = await checkEndpoint('http://10.1.2.3:8000/v1', 'wm-7b', {
      allowlist: ALLOWLIST,
      fetch: () => {
        contacted = true;
        return Promise.reject(new Error('must not be called'));
      },
    });
    expect(contacted).toBe(false);
    expect(health.status).toBe('refused');
    expect(health.message).toContain('"10.1.2.3"');
  });
});
