import { createServer, type Server } from 'node:http';
import {
  buildBenchFromDatasets,
  collectDataFiles,
  importFiles,
  readDataFile,
  startBenchWorkers,
  startRun,
  watchRun,
  type BenchWorkers,
} from '@terrarium/api';
import { startTestServer, TEST_TOKEN, type TestServer } from '@terrarium/api/testing';
import { RunResult, type BenchRun } from '@terrarium/schema';
import { sharedDataPath } from '@terrarium/schema/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CliError } from '../cli-error';
import { localBenchClient, remoteBenchClient } from './bench-client';

const TAU2_RETAIL = sharedDataPath(
  'tau2-bench/results/gpt-4.1_retail_defautl_gpt-4.1_1trials.json',
);
// Measured on tau2 retail (40 trajectories, agentworld sampling).
const RETAIL_ITEMS = 194;

async function collect(lines: AsyncIterable<string>): Promise<string[]> {
  const all: string[] = [];
  for await (const line of lines) all.push(line);
  return all;
}

describe('a run’s results through a running server, as `bench results` reads them', () => {
  let server: TestServer;
  let workers: BenchWorkers;
  let run: BenchRun;
  beforeAll(async () => {
    server = await startTestServer();
    const files = (await collectDataFiles([TAU2_RETAIL])).map(readDataFile);
    await importFiles(server.store, files, { dataset: 'retail' });
    await buildBenchFromDatasets(
      { store: server.store },
      {
        name: 'r',
        datasets: ['retail'],
        sampling: { kind: 'agentworld' },
        seed: 0,
        devFraction: 0,
      },
    );
    workers = await startBenchWorkers(server.store, { concurrency: 1, anyOnnxPath: true });
    const ctx = { store: server.store, benchRunner: workers.runner };
    const started = await startRun(ctx, {
      bench: 'r',
      sims: ['replay'],
      judge: null,
      mode: { kind: 'open' },
      split: 'test',
    });
    for await (const update of watchRun(ctx, started.id, undefined)) run = update;
  }, 180_000);
  afterAll(async () => {
    await workers?.stop();
    await server?.close();
  });

  it('streams the same lines as a store opened in this process', async () => {
    expect(run.status).toBe('done');
    const remote = remoteBenchClient(server.url, TEST_TOKEN);
    const local = localBenchClient(server.store, { workers: 0 });
    const lines = await collect(remote.results(run.id));
    expect(lines).toHaveLength(RETAIL_ITEMS);
    expect(lines).toEqual(await collect(local.results(run.id)));
    const rows = lines.map((line) => RunResult.parse(JSON.parse(line)));
    expect(rows.every((row) => row.scores['rule:content'] === 1)).toBe(true);
    expect((await remote.runs('r')).map((listed) => listed.id)).toEqual([run.id]);
    await local.close();
  });

  it('says what the server refused, with its words', async () => {
    const remote = remoteBenchClient(server.url, TEST_TOKEN);
    await expect(collect(remote.results('999999'))).rejects.toThrow(
      new CliError(`the server at ${server.url} refused: run: no bench run 999999`),
    );
    const stranger = remoteBenchClient(server.url, 'wrong-token-wrong-token-wrong-token');
    await expect(collect(stranger.results(run.id))).rejects.toThrow(CliError);
  });
});

describe('a results download that breaks off', () => {
  let broken: Server;
  let url: string;
  beforeAll(async () => {
    // A server that fails after its first line, as one whose store failed mid-way does.
    broken = createServer((_request, response) => {
      response.writeHead(200, { 'content-type': 'application/x-ndjson' });
      response.write('{"run":"1"}\n{"run":');
      setTimeout(() => response.destroy(), 20);
    });
    await new Promise<void>((resolve) => broken.listen(0, '127.0.0.1', resolve));
    const address = broken.address();
    if (address === null || typeof address === 'string') throw new Error('no port');
    url = `http://127.0.0.1:${address.port}`;
  });
  afterAll(() => new Promise<void>((resolve) => broken.close(() => resolve())));

  it('fails rather than ending as if the file were whole', async () => {
    const lines: string[] = [];
    const reading = (async () => {
      for await (const line of remoteBenchClient(url, TEST_TOKEN).results('1')) lines.push(line);
    })();
    await expect(reading).rejects.toThrow(/^the download from http:\/\/127\.0\.0\.1:\d+ broke off/);
    expect(lines).toEqual(['{"run":"1"}']);
  });
});
