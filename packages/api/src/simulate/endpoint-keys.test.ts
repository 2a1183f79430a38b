import { predictionInputs } from '@terrarium/worlds';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { collectDataFiles, readDataFile } from '../import/collect-files';
import { importFiles } from '../import/import-files';
import { TAU2_RETAIL } from '../testing/sample-files';
import { startTestServer, type TestServer } from '../testing/test-server';
import { findDataset } from './find-trajectory';
import { loadDataset } from './load-trajectories';
import { openAIModel } from './resolve-simulator';
import { endpointApiKey } from './sim-spec';

describe('endpointApiKey', () => {
  it('gives each key only to the origin it names', () => {
    const env = {
      TERRARIUM_API_KEYS:
        'http://127.0.0.1:8000=sk-local, https://api.example.com=sk=with=equals,not a url=x',
    };
    expect(endpointApiKey('http://127.0.0.1:8000/v1', env)).toEqual({ apiKey: 'sk-local' });
    expect(endpointApiKey('https://api.example.com/v1/', env)).toEqual({
      apiKey: 'sk=with=equals',
    });
    // Another port is another server: no key.
    expect(endpointApiKey('http://127.0.0.1:8001/v1', env)).toEqual({});
    expect(endpointApiKey('http://127.0.0.1:8000/v1', {})).toEqual({});
  });
});

describe('an openai: simulator pointed at Terrarium’s own /v1', () => {
  let server: TestServer;
  const saved = process.env['TERRARIUM_API_KEYS'];
  beforeAll(async () => {
    server = await startTestServer();
    const files = await Promise.all((await collectDataFiles([TAU2_RETAIL])).map(readDataFile));
    await importFiles(server.store, files, { dataset: 'retail' });
  }, 60_000);
  afterEach(() => {
    if (saved === undefined) delete process.env['TERRARIUM_API_KEYS'];
    else process.env['TERRARIUM_API_KEYS'] = saved;
  });
  afterAll(() => server.close());

  it('is refused without a key, saying how to give one, and answers with it', async () => {
    const dataset = await findDataset(server.store, 'retail');
    const [trajectory] = await loadDataset(server.store, dataset.id);
    const [input] = trajectory === undefined ? [] : [...predictionInputs(trajectory)];
    if (input === undefined) throw new Error('no transition in tau2 retail');
    const predict = () =>
      openAIModel(`${server.url}/v1`, 'replay@retail', { allowlist: ['127.0.0.1'] }).predict(
        input.context,
        input.history,
        input.action,
      );
    await expect(predict()).rejects.toThrow(
      /answered HTTP 401: .*\(no API key was sent; set TERRARIUM_API_KEYS=ORIGIN=KEY/,
    );
    process.env['TERRARIUM_API_KEYS'] = `${server.url}=${server.token}`;
    const prediction = await predict();
    expect(prediction.observation.content).toBe(input.expected.content);
  });
});
