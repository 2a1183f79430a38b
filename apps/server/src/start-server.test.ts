import { readFile, readdir, mkdtemp, mkdir, rm, writeFile } from 'node:fs/promises';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Store } from '@terrarium/db';
import { openMemoryStore } from '@terrarium/db/test-store';
import { DatasetSummary, ImportReport, TrajectorySummary } from '@terrarium/schema';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { CONTENT_SECURITY_POLICY } from './security-headers';
import { startServer, type RunningServer } from './start-server';
import { sharedDataPath } from '@terrarium/schema/testing';

const TOKEN = 'server-test-token-0123456789';
const AUTH = { authorization: `Bearer ${TOKEN}` };

const TAU2_RETAIL = sharedDataPath(
  'tau2-bench/results/gpt-4.1_retail_defautl_gpt-4.1_1trials.json',
);

/** A tRPC query as httpBatchLink sends it when not batching. */
async function trpcQuery(url: string, procedure: string, input: unknown) {
  const query = new URLSearchParams({ input: JSON.stringify(input) });
  const response = await fetch(`${url}/trpc/${procedure}?${query}`, { headers: AUTH });
  const body: unknown = await response.json();
  return { status: response.status, body };
}

/** `value.a.b…`, or undefined when the path does not exist. */
function at(value: unknown, ...keys: string[]): unknown {
  let current = value;
  for (const key of keys) {
    if (typeof current !== 'object' || current === null) return undefined;
    current = Object.getOwnPropertyDescriptor(current, key)?.value;
  }
  return current;
}

describe('startServer', () => {
  let store: Store;
  let server: RunningServer;
  let webDist: string;

  beforeAll(async () => {
    webDist = await mkdtemp(path.join(tmpdir(), 'terrarium-web-'));
    await mkdir(path.join(webDist, 'assets'));
    await writeFile(path.join(webDist, 'index.html'), '<!doctype html><title>Terrarium</title>');
    await writeFile(path.join(webDist, 'assets', 'app-1234.js'), 'console.log(1)');
    await writeFile(
      path.join(webDist, 'assets', 'ort-5678.wasm'),
      new Uint8Array([0, 97, 115, 109]),
    );
    store = await openMemoryStore();
    server = await startServer({
      store,
      port: 0,
      webDist,
      dataDir: '/tmp/served-folder',
      token: TOKEN,
    });
  }, 120_000);
  afterAll(async () => {
    await server.close();
    await store.close();
  });

  it('listens on 127.0.0.1 and reports its health', async () => {
    expect(server.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    // Anonymous callers get the health report without the folder's path.
    const anonymous = await fetch(`${server.url}/api/health`);
    expect(await anonymous.json()).toEqual({ ok: true, backend: 'pglite', version: '0.1.0' });
    const response = await fetch(`${server.url}/api/health`, { headers: AUTH });
    expect(await response.json()).toEqual({
      ok: true,
      backend: 'pglite',
      dataDir: '/tmp/served-folder',
      version: '0.1.0',
    });
  });

  it(
    'imports a streamed upload and shows it over tRPC and /api/datasets',
    { timeout: 60_000 },
    async () => {
      const body = await readFile(TAU2_RETAIL);
      const response = await fetch(`${server.url}/api/import?dataset=retail&file=retail.json`, {
        method: 'POST',
        headers: AUTH,
        body,
      });
      expect(response.status).toBe(200);
      const answer: unknown = await response.json();
      expect(ImportReport.parse(answer)).toEqual({
        dataset: 'retail',
        format: 'tau2-bench',
        trajectories: 40,
        transitions: 299,
        quarantined: 0,
        errors: [],
      });
      expect(answer).toMatchObject({ exitCode: 0 });

      const datasets = DatasetSummary.array().parse(
        await (await fetch(`${server.url}/api/datasets`, { headers: AUTH })).json(),
      );
      expect(datasets.map((dataset) => [dataset.name, dataset.trajectories])).toEqual([
        ['retail', 40],
      ]);

      const listed = await trpcQuery(server.url, 'trajectories.list', {
        filter: { datasetId: datasets[0]?.id },
        offset: 0,
        limit: 3,
      });
      expect(listed.status).toBe(200);
      expect(at(listed.body, 'result', 'data', 'total')).toBe(40);
      const rows = TrajectorySummary.array().parse(at(listed.body, 'result', 'data', 'rows'));
      expect(rows.map((row) => row.datasetId)).toEqual([
        datasets[0]?.id,
        datasets[0]?.id,
        datasets[0]?.id,
      ]);
    },
  );

  it('discards an upload whose client went away midway', { timeout: 60_000 }, async () => {
    // Uploads are stored before they are imported: one cut off midway never becomes an import.
    const spoolDir = await mkdtemp(path.join(tmpdir(), 'terrarium-spool-'));
    const watchedServer = await startServer({ store, port: 0, webDist, token: TOKEN, spoolDir });
    try {
      const body = await readFile(TAU2_RETAIL);
      const cut = request(`${watchedServer.url}/api/import?dataset=cut-off&file=retail.json`, {
        method: 'POST',
        headers: { ...AUTH, 'content-length': String(body.byteLength) },
      });
      const closed = new Promise<void>((resolve) => {
        cut.on('error', () => resolve());
        cut.on('close', () => resolve());
      });
      await new Promise<void>((resolve) => cut.write(body.subarray(0, 1_500_000), () => resolve()));
      cut.destroy();
      await closed;
      // The server notices the broken body and deletes what it had stored of it. It may not have
      // opened its spool file yet when the client is gone (the spool folder is then still empty),
      // so wait for the file to appear (up to 1 s; it may come and go between two looks), then for
      // it to go.
      const spooled = async () => (await readdir(spoolDir)).length;
      for (let wait = 0; wait < 100 && (await spooled()) === 0; wait++) {
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
      for (let wait = 0; wait < 100 && (await spooled()) > 0; wait++) {
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      expect(await readdir(spoolDir)).toEqual([]);
      expect((await store.listImportJobs()).map((job) => job.dataset)).not.toContain('cut-off');
      const names = (await store.listDatasets()).map((dataset) => dataset.name);
      expect(names).not.toContain('cut-off');
    } finally {
      await watchedServer.close();
      await rm(spoolDir, { recursive: true, force: true });
    }
  });

  it('answers 400 naming the bad import parameter', async () => {
    const missing = await fetch(`${server.url}/api/import?file=a.json`, {
      method: 'POST',
      headers: AUTH,
      body: '{}',
    });
    expect(missing.status).toBe(400);
    expect(await missing.json()).toMatchObject({
      error: { issues: [{ field: 'dataset' }] },
    });
    const badFormat = await fetch(`${server.url}/api/import?dataset=d&file=a.json&format=csv`, {
      method: 'POST',
      headers: AUTH,
      body: '{}',
    });
    expect(badFormat.status).toBe(400);
    expect(await badFormat.json()).toMatchObject({ error: { issues: [{ field: 'format' }] } });
    // A NUL cannot be stored: the caller's error, as on tRPC, not a 500 from the insert.
    const nul = await fetch(`${server.url}/api/import?dataset=%00&file=a.json`, {
      method: 'POST',
      headers: AUTH,
      body: '{}',
    });
    expect([nul.status, await nul.json()]).toEqual([
      400,
      {
        error: {
          message: expect.any(String),
          issues: [{ field: 'dataset', message: 'text may not contain a NUL character (\\u0000)' }],
        },
      },
    ]);
  });

  it('answers tRPC input errors with 400 naming the field, and NOT_FOUND with 404', async () => {
    const tooMany = await trpcQuery(server.url, 'trajectories.steps', {
      trajectoryId: 'x',
      offset: 0,
      limit: 1000,
    });
    expect(tooMany.status).toBe(400);
    expect(tooMany.body).toMatchObject({
      error: { data: { code: 'BAD_REQUEST', issues: [{ field: 'limit' }] } },
    });
    const missing = await trpcQuery(server.url, 'trajectories.get', { trajectoryId: 'nope' });
    expect(missing.status).toBe(404);
  });

  it('answers batched tRPC calls as httpBatchLink sends them', async () => {
    const input = JSON.stringify({ '1': { filter: {}, offset: 0, limit: 1 } });
    const response = await fetch(
      `${server.url}/trpc/datasets.list,trajectories.list?batch=1&input=${encodeURIComponent(input)}`,
      { headers: AUTH },
    );
    expect(response.status).toBe(200);
    const answers: unknown = await response.json();
    const [datasets, trajectories] = Array.isArray(answers) ? answers : [];
    expect(
      DatasetSummary.array()
        .parse(at(datasets, 'result', 'data'))
        .map((d) => d.name),
    ).toEqual(['retail']);
    expect(at(trajectories, 'result', 'data', 'total')).toBe(40);
  });

  it('serves the web app with its content types, a SPA fallback and the security headers', async () => {
    const index = await fetch(`${server.url}/`);
    expect(index.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(index.headers.get('content-security-policy')).toBe(CONTENT_SECURITY_POLICY);
    expect(CONTENT_SECURITY_POLICY).toContain("default-src 'self'");
    expect(CONTENT_SECURITY_POLICY).not.toContain("'unsafe-inline'; script");
    expect(index.headers.get('x-content-type-options')).toBe('nosniff');
    expect(index.headers.get('cross-origin-opener-policy')).toBe('same-origin');
    expect(index.headers.get('cross-origin-embedder-policy')).toBe('require-corp');

    const deepLink = await fetch(`${server.url}/datasets/abc/trajectories/def?step=4`);
    expect(await deepLink.text()).toBe('<!doctype html><title>Terrarium</title>');

    const script = await fetch(`${server.url}/assets/app-1234.js`);
    expect(script.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    const wasm = await fetch(`${server.url}/assets/ort-5678.wasm`);
    expect(wasm.headers.get('content-type')).toBe('application/wasm');
    expect(new Uint8Array(await wasm.arrayBuffer())).toEqual(new Uint8Array([0, 97, 115, 109]));

    expect((await fetch(`${server.url}/assets/missing.js`)).status).toBe(404);
    expect((await fetch(`${server.url}/api/nothing-here`, { headers: AUTH })).status).toBe(404);
    const apiHeaders = (await fetch(`${server.url}/api/health`)).headers;
    expect(apiHeaders.get('content-security-policy')).toBe(CONTENT_SECURITY_POLICY);
  });

  it('logs nothing when a browser leaves in the middle of a file', async () => {
    // The bundled wasm files are 14-28 MB: a reload or a new page while one loads is ordinary.
    await writeFile(path.join(webDist, 'assets', 'large-9999.wasm'), new Uint8Array(16 << 20));
    const logged = vi.spyOn(console, 'error').mockImplementation(() => {});
    try {
      await new Promise<void>((resolve, reject) => {
        const download = request(`${server.url}/assets/large-9999.wasm`, (response) => {
          response.once('data', () => {
            download.destroy();
            resolve();
          });
        });
        download.on('error', () => {});
        download.once('error', reject);
        download.end();
      });
      // The server learns of the close a moment later; give a log line the time to appear.
      for (let wait = 0; wait < 40 && logged.mock.calls.length === 0; wait++) {
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      expect(logged.mock.calls).toEqual([]);
      // And it goes on serving.
      expect((await fetch(`${server.url}/assets/app-1234.js`)).status).toBe(200);
    } finally {
      logged.mockRestore();
    }
  });

  it('never serves files outside the web folder', async () => {
    const escaped = await fetch(`${server.url}/..%2f..%2fetc%2fpasswd`);
    expect(await escaped.text()).toBe('<!doctype html><title>Terrarium</title>');
  });
});
