import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { BenchWorkers } from '@terrarium/api';
import { finishedAirlineRun, startTestServer, type TestServer } from '@terrarium/api/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../testing/run-cli';

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** `value.a.b…`, or undefined when the path does not exist. */
function at(value: unknown, ...keys: string[]): unknown {
  let current = value;
  for (const key of keys) current = isRecord(current) ? current[key] : undefined;
  return current;
}

/** tRPC's `{result: {data}}`, or a failure naming the procedure and what the server said. */
async function dataOf(procedure: string, response: Response): Promise<unknown> {
  const body: unknown = await response.json();
  const result = isRecord(body) ? body['result'] : undefined;
  if (response.status !== 200 || !isRecord(result)) {
    throw new Error(`${procedure}: ${response.status} ${JSON.stringify(body)}`);
  }
  return result['data'];
}

describe('terrarium labels agreement beside the Agreement page', () => {
  let server: TestServer;
  let workers: BenchWorkers;
  let queueId: string;

  const query = async (procedure: string, input: unknown) =>
    dataOf(
      procedure,
      await fetch(
        `${server.url}/trpc/${procedure}?${new URLSearchParams({ input: JSON.stringify(input) })}`,
        { headers: server.authHeaders },
      ),
    );
  const mutate = async (procedure: string, input: unknown) =>
    dataOf(
      procedure,
      await fetch(`${server.url}/trpc/${procedure}`, {
        method: 'POST',
        headers: { ...server.authHeaders, 'content-type': 'application/json' },
        body: JSON.stringify(input),
      }),
    );

  beforeAll(async () => {
    server = await startTestServer();
    const { store } = server;
    // tau2 airline, benched and run with replay (the quickest simulator): labels need a run.
    let runId: string;
    ({ workers, runId } = await finishedAirlineRun(store, ['replay']));
    await server.addUser('ann', 'labeler');
    await server.addUser('bob', 'labeler');
    const queue = await mutate('labels.createQueue', {
      name: 'six items',
      runId,
      selection: { kind: 'random', count: 6, seed: 3 },
      labelsPerItem: 2,
    });
    queueId = String(at(queue, 'id'));
    const items = await query('labels.items', { queueId });
    const itemIds = (Array.isArray(items) ? items : []).map((item: unknown) =>
      isRecord(item) ? String(item['itemId']) : '',
    );
    // Two labelers who mostly agree on the judge's five dimensions, now and then by one point.
    const lines = itemIds.flatMap((item, i) =>
      ['format', 'factuality', 'consistency', 'realism', 'quality'].flatMap((criterion, c) => {
        const value = 1 + ((i * 3 + c * 2) % 5);
        return [
          { item, labeler: 'ann', criterion, value },
          { item, labeler: 'bob', criterion, value: (i + c) % 4 === 0 ? (value % 5) + 1 : value },
        ].map((line) => JSON.stringify(line));
      }),
    );
    await mutate('labels.importJsonl', { queueId, text: lines.join('\n') });
  }, 240_000);

  afterAll(async () => {
    await server?.close();
    await workers?.stop();
  });

  it(
    'gives the page’s figures and intervals, to the last digit, on the page’s export',
    { timeout: 60_000 },
    async () => {
      const agreement = await query('labels.agreement', { queueId, judgeVersion: null });
      const exported = await query('labels.exportJsonl', { queueId });
      const file = path.join(await mkdtemp(path.join(tmpdir(), 'terrarium-agreement-')), 'q.jsonl');
      await writeFile(file, String(at(exported, 'text')));

      const cli = await runCli(['labels', 'agreement', file, '--bootstrap', '--json']);
      expect([cli.code, cli.stderr]).toEqual([0, '']);
      const report: unknown = JSON.parse(cli.stdout);
      const page = at(agreement, 'labelers');
      expect(report).toEqual(page);
      // Intervals there are, from the page's 1,000 resamples, so the equality says something.
      const ordinal = at(page, 'intervals', 'ordinal');
      expect([
        at(ordinal, 'resamples'),
        typeof at(ordinal, 'low'),
        typeof at(ordinal, 'high'),
      ]).toEqual([1000, 'number', 'number']);

      // Another count is another interval, and the text says which count it used.
      const text = await runCli(['labels', 'agreement', file, '--bootstrap', '400']);
      expect(text.stdout.trimEnd().split('\n').at(-1)).toBe(
        '95% intervals: 400 resamples of the items, seed 1',
      );
    },
  );
});
