import { readFile, stat } from 'node:fs/promises';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Store } from '@terrarium/db';
import { openMemoryStore } from '@terrarium/db/test-store';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findModelFile, servedModelFolders } from './model-files';
import { startServer, type RunningServer } from './start-server';

const BUNDLED = fileURLToPath(new URL('../../../models/terrarium-wm-tiny', import.meta.url));

describe('servedModelFolders', () => {
  it('lists the bundled model and the onnx folders configured in TERRARIUM_SIMULATORS', () => {
    const folders = servedModelFolders({
      TERRARIUM_SIMULATORS: 'onnx:/srv/models/other-model,openai:http://127.0.0.1:9/v1#m',
    });
    expect([...folders.entries()]).toEqual([
      ['terrarium-wm-tiny', BUNDLED],
      ['other-model', '/srv/models/other-model'],
    ]);
  });
});

describe('findModelFile', () => {
  const folders = new Map([['terrarium-wm-tiny', BUNDLED]]);

  it('finds the files the browser needs', async () => {
    const model = await findModelFile('/models/terrarium-wm-tiny/onnx/model.onnx', folders);
    expect(model).toEqual({
      path: path.join(BUNDLED, 'onnx/model.onnx'),
      size: (await stat(path.join(BUNDLED, 'onnx/model.onnx'))).size,
    });
    expect(await findModelFile('/models/terrarium-wm-tiny/tokenizer.json', folders)).not.toBe(null);
  });

  it('answers nothing else in the folder, no other folder and no path out of it', async () => {
    const pathnames = [
      '/models/terrarium-wm-tiny/training-log.json',
      '/models/terrarium-wm-tiny/split.json',
      '/models/terrarium-wm-tiny/',
      '/models/terrarium-wm-tiny/onnx/../config.json',
      '/models/terrarium-wm-tiny/onnx/missing.onnx',
      '/models/other/config.json',
      '/models/terrarium-wm-tiny',
    ];
    const found = await Promise.all(
      pathnames.map(async (pathname) => [pathname, await findModelFile(pathname, folders)]),
    );
    expect(found).toEqual(pathnames.map((pathname) => [pathname, null]));
  });
});

describe('GET /models/… on the server', () => {
  let store: Store;
  let server: RunningServer;

  beforeAll(async () => {
    store = await openMemoryStore();
    const webDist = await mkdtemp(path.join(tmpdir(), 'terrarium-web-'));
    server = await startServer({ store, port: 0, webDist, token: 'model-files-test-token' });
  }, 120_000);
  afterAll(async () => {
    await server.close();
    await store.close();
  });

  const signedIn = { authorization: 'Bearer model-files-test-token' };

  it('serves model files to signed-in callers only: an onnx: spec may name a private folder', async () => {
    const anonymous = await fetch(`${server.url}/models/terrarium-wm-tiny/config.json`);
    expect([anonymous.status, await anonymous.text()]).toEqual([
      401,
      'log in (or send the program token) to fetch model files\n',
    ]);
    const wrong = await fetch(`${server.url}/models/terrarium-wm-tiny/config.json`, {
      headers: { authorization: 'Bearer not-the-token' },
    });
    expect(wrong.status).toBe(401);
  });

  it('serves the bundled model config read-only, with the security headers', async () => {
    const response = await fetch(`${server.url}/models/terrarium-wm-tiny/config.json`, {
      headers: signedIn,
    });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(response.headers.get('cross-origin-resource-policy')).toBe('same-origin');
    expect(await response.text()).toBe(await readFile(path.join(BUNDLED, 'config.json'), 'utf8'));

    const post = await fetch(`${server.url}/models/terrarium-wm-tiny/config.json`, {
      method: 'POST',
      headers: signedIn,
      body: '{}',
    });
    expect(post.status).toBe(405);
  });

  it('answers 404, not the app, for a file it does not serve', async () => {
    const response = await fetch(`${server.url}/models/terrarium-wm-tiny/training-log.json`, {
      headers: signedIn,
    });
    expect(response.status).toBe(404);
    expect(await response.text()).toBe('not found\n');
  });
});
