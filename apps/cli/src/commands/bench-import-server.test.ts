import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import {
  agentWorldBenchLines,
  buildBenchFromDatasets,
  collectDataFiles,
  importAgentWorldBench,
  importFiles,
  readDataFile,
} from '@terrarium/api';
import { startTestServer, TEST_TOKEN, type TestServer } from '@terrarium/api/testing';
import { BenchImportResponse } from '@terrarium/schema';
import { sharedDataPath } from '@terrarium/schema/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../testing/run-cli';

const TAU2_RETAIL = sharedDataPath(
  'tau2-bench/results/gpt-4.1_retail_defautl_gpt-4.1_1trials.json',
);
// Measured on tau2 retail (40 trajectories, agentworld sampling).
const RETAIL_ITEMS = 194;

describe('terrarium bench import --server URL: a folder streamed to a running server', () => {
  let server: TestServer;
  let folder: string;
  let lines: string[];
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
    lines = [];
    for await (const line of agentWorldBenchLines(server.store, 'r')) lines.push(line);
    // A folder of two official-layout files, in the official order (sorted names).
    folder = await mkdtemp(path.join(tmpdir(), 'awb-folder-'));
    await writeFile(path.join(folder, 'mcp_test.jsonl'), `${lines.slice(0, 100).join('\n')}\n`);
    await writeFile(path.join(folder, 'search_test.jsonl'), `${lines.slice(100).join('\n')}\n`);
    await writeFile(path.join(folder, 'README.md'), 'not a bench file');
  }, 180_000);
  afterAll(async () => {
    await server?.close();
    await rm(folder, { recursive: true, force: true });
  });

  it('imports both files as one bench, the same as an import in the server process', async () => {
    const result = await runCli(
      ['bench', 'import', folder, '--name', 'uploaded', '--server', `${server.url}/`, '--json'],
      { TERRARIUM_TOKEN: TEST_TOKEN },
    );
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    const answer = BenchImportResponse.parse(JSON.parse(result.stdout));
    expect(answer.errors).toEqual([]);
    expect(answer.manifest).toMatchObject({
      name: 'uploaded',
      version: 1,
      itemCount: RETAIL_ITEMS,
      sources: ['mcp_test.jsonl, search_test.jsonl'],
    });
    const inProcess = await importAgentWorldBench(server.store, {
      name: 'in-process',
      files: [
        { fileName: 'mcp_test.jsonl', lines: lines.slice(0, 100) },
        { fileName: 'search_test.jsonl', lines: lines.slice(100) },
      ],
    });
    expect(answer.manifest?.contentHash).toBe(inProcess.manifest?.contentHash);
  }, 120_000);

  it('names the server and its refusal without a valid token', async () => {
    const result = await runCli(
      ['bench', 'import', folder, '--name', 'x', '--server', server.url, '--json'],
      { TERRARIUM_TOKEN: 'wrong-token-wrong-token-wrong-token' },
    );
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(`the server at ${server.url} refused:`);
    expect(await server.store.getBench('x')).toBeNull();
  }, 60_000);
});
