import { mkdtemp, readFile, stat, writeFile } from 'node:fs/promises';
import { networkInterfaces, tmpdir } from 'node:os';
import path from 'node:path';
import type { Store } from '@terrarium/db';
import { openMemoryStore } from '@terrarium/db/test-store';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { localOwnerLink } from '@terrarium/api';
import { boundHostNames, isLoopbackAddress } from './bind-address';
import { ensureProgramToken, TokenError } from './program-token';
import { serveTerrarium } from './serve';
import { startServer, type RunningServer } from './start-server';

describe('the program token', () => {
  it('is made once per folder, mode 0600, and TERRARIUM_TOKEN overrides it', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'terrarium-token-'));
    const first = await ensureProgramToken(dir, {});
    expect(first).toMatch(/^[\w-]{43}$/);
    expect((await stat(path.join(dir, 'token'))).mode & 0o777).toBe(0o600);
    expect(await ensureProgramToken(dir, {})).toBe(first);
    expect(await ensureProgramToken(dir, { TERRARIUM_TOKEN: 'configured-token-0123' })).toBe(
      'configured-token-0123',
    );
    await expect(ensureProgramToken(dir, { TERRARIUM_TOKEN: 'short' })).rejects.toThrow(TokenError);
    // A run through the alphabet or the digits has enough distinct characters, and is no secret.
    for (const run of ['abcdefghijklmnop', '0123456789012345', 'ABCDEFGHIJKLMNOPQRSTUVWXYZ']) {
      await expect(ensureProgramToken(dir, { TERRARIUM_TOKEN: run })).rejects.toThrow(
        'TERRARIUM_TOKEN runs through the alphabet or the digits: use a random one (openssl rand -hex 32)',
      );
    }
    await expect(ensureProgramToken(dir, { TERRARIUM_TOKEN: 'a'.repeat(32) })).rejects.toThrow(
      'TERRARIUM_TOKEN repeats too few characters to be a secret: use a random one (openssl rand -hex 32)',
    );
    expect((await readFile(path.join(dir, 'token'), 'utf8')).trim()).toBe(first);
  });

  it('must be configured to serve beyond loopback', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'terrarium-wide-'));
    await expect(serveTerrarium({ dataDir: dir, host: '0.0.0.0', env: {} })).rejects.toThrow(
      /refusing to listen on 0\.0\.0\.0 without a token/,
    );
  });

  it('knows loopback and the names of a wildcard bind', () => {
    expect(['127.0.0.1', '127.0.0.2', '::1', '[::1]', 'localhost'].map(isLoopbackAddress)).toEqual([
      true,
      true,
      true,
      true,
      true,
    ]);
    expect(['0.0.0.0', '10.1.2.3', 'example.test'].map(isLoopbackAddress)).toEqual([
      false,
      false,
      false,
    ]);
    expect(boundHostNames('0.0.0.0')).toContain('127.0.0.1');
    expect(boundHostNames('10.1.2.3')).toEqual(['10.1.2.3']);
  });
});

describe('a loopback server and its pages', () => {
  let store: Store;
  let server: RunningServer;
  let webDist: string;
  beforeAll(async () => {
    webDist = await mkdtemp(path.join(tmpdir(), 'terrarium-web-'));
    await writeFile(path.join(webDist, 'index.html'), '<!doctype html><title>Terrarium</title>');
    store = await openMemoryStore();
    server = await startServer({
      store,
      webDist,
      token: 'serve-security-token-0123',
      allowedHosts: ['terrarium.internal'],
    });
  }, 120_000);
  afterAll(async () => {
    await server.close();
    await store.close();
  });

  it("gives the owner's link (a page load) the local-owner cookie, never an asset or a frame", async () => {
    const token = 'serve-security-token-0123';
    // Any user of the machine can load the page; without the link it starts no session.
    const plain = await fetch(`${server.url}/`, { headers: { 'sec-fetch-dest': 'document' } });
    expect([plain.status, plain.headers.getSetCookie()]).toEqual([200, []]);
    const page = await fetch(localOwnerLink(`${server.url}/`, token), {
      headers: { 'sec-fetch-dest': 'document' },
      redirect: 'manual',
    });
    // The session's proof in the fragment: the page keeps it, and sends it beside the cookie.
    const location = page.headers.get('location') ?? '';
    expect([page.status, location.replace(/=[\w-]{43}$/, '=…')]).toEqual([
      303,
      '/#session-proof=…',
    ]);
    const [cookie] = page.headers.getSetCookie();
    expect(cookie).toMatch(
      /^terrarium_session_\d+=[\w-]{43}; Max-Age=604800; Path=\/; HttpOnly; SameSite=Strict$/,
    );
    const asset = await fetch(localOwnerLink(`${server.url}/assets/x.js`, token), {
      headers: { 'sec-fetch-dest': 'script' },
    });
    expect(asset.headers.getSetCookie()).toEqual([]);
    const framed = await fetch(localOwnerLink(`${server.url}/`, token), {
      headers: { 'sec-fetch-dest': 'iframe' },
    });
    expect(framed.headers.getSetCookie()).toEqual([]);

    const pair = cookie?.split(';')[0] ?? '';
    const proof = location.slice(location.lastIndexOf('=') + 1);
    expect((await fetch(`${server.url}/api/datasets`, { headers: { cookie: pair } })).status).toBe(
      401,
    );
    const datasets = await fetch(`${server.url}/api/datasets`, {
      headers: { cookie: pair, 'x-terrarium-session-proof': proof },
    });
    expect(datasets.status).toBe(200);
    expect(await datasets.json()).toEqual([]);
  });

  it('gives model files to signed-in callers only, however the request is dressed', async () => {
    // walk 42: with `Accept: text/html` (as a link opened in the browser sends) the page-load
    // branch answered first and served the weights to anyone.
    const file = `${server.url}/models/terrarium-wm-tiny/config.json`;
    const statusOf = async (headers: Record<string, string>) =>
      (await fetch(file, { headers })).status;
    expect([
      await statusOf({}),
      await statusOf({ accept: 'text/html' }),
      await statusOf({ 'sec-fetch-dest': 'document', accept: 'text/html' }),
      await statusOf({ authorization: 'Bearer serve-security-token-0123' }),
    ]).toEqual([401, 401, 401, 200]);
  });

  it('names its loopback URL when bound to every address, and the others for other machines', async () => {
    const wide = await startServer({
      store,
      webDist,
      host: '0.0.0.0',
      token: 'serve-security-token-0123',
    });
    try {
      expect(wide.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
      const port = new URL(wide.url).port;
      // This machine's IPv4 addresses: 0.0.0.0 listens on IPv4 alone, so no IPv6 URL is offered.
      const ipv4 = Object.values(networkInterfaces())
        .flatMap((entries) => entries ?? [])
        .filter((entry) => entry.family === 'IPv4' && !entry.internal)
        .map((entry) => `http://${entry.address}:${port}`);
      expect(wide.otherUrls).toEqual(ipv4);
      // What the CLI does with the recorded URL: it is answered (was a 421 for Host 0.0.0.0).
      const health = await fetch(`${wide.url}/api/health`);
      expect(health.status).toBe(200);
    } finally {
      await wide.close();
    }
  });

  it('answers to an --allowed-host name and no other', async () => {
    const { request } = await import('node:http');
    const status = (host: string) =>
      new Promise<number>((resolve, reject) => {
        const target = new URL(server.url);
        request({
          host: target.hostname,
          port: target.port,
          path: '/api/health',
          headers: { host },
        })
          .on('response', (response) => {
            response.resume();
            resolve(response.statusCode ?? 0);
          })
          .on('error', reject)
          .end();
      });
    expect(await status('terrarium.internal:8080')).toBe(200);
    expect(await status('localhost')).toBe(200);
    expect(await status('terrarium.internal.attacker.test')).toBe(421);
  });
});
