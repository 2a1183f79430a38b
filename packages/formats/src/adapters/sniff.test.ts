import { readdirSync, statSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ADAPTERS } from './index';
import { DATA, headOf } from './testing/load-records';

const FIXTURES = fileURLToPath(new URL('../../fixtures/', import.meta.url));

function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? filesUnder(path) : [path];
  });
}

/** The adapters that claim a file, named by format and layout. */
function claimants(file: string): string[] {
  const probe = { fileName: file, head: headOf(file) };
  return ADAPTERS.filter((adapter) => adapter.sniff(probe)).map(
    (adapter) => `${adapter.format}/${adapter.layout.kind}`,
  );
}

const expected: [string, string][] = [
  ...filesUnder(`${DATA}/tau2-bench/results`).map((file): [string, string] => [
    file,
    'tau2-bench/object-stream',
  ]),
  [`${DATA}/tau-bench-v1/historical_trajectories/gpt-4o-airline.json`, 'tau-bench-v1/json-array'],
  ...filesUnder(`${DATA}/swe-agent`)
    .filter((file) => file.endsWith('.traj'))
    .map((file): [string, string] => [file, 'swe-agent/json-document']),
  ...filesUnder(`${DATA}/intercode/data/results`).map((file): [string, string] => [
    file,
    file.includes('/human/')
      ? 'intercode-human-sql/json-object-values'
      : 'intercode/json-object-values',
  ]),
  [`${FIXTURES}openai-messages.jsonl`, 'openai-messages/jsonl'],
  [`${FIXTURES}sharegpt.jsonl`, 'sharegpt/jsonl'],
  [`${FIXTURES}sharegpt-array.json`, 'sharegpt/json-array'],
  [`${FIXTURES}agentworldbench.jsonl`, 'agentworldbench/jsonl'],
  [`${FIXTURES}agentworldbench-answered.jsonl`, 'agentworldbench/jsonl'],
  [`${FIXTURES}atif-terminus.trajectory.json`, 'atif/json-document'],
  [`${FIXTURES}atif-multi-tool.trajectory.json`, 'atif/json-document'],
  [`${FIXTURES}openhands-events.json`, 'openhands/json-document'],
  [`${FIXTURES}openhands-output.jsonl`, 'openhands/jsonl'],
];

describe('format sniffing', () => {
  it('covers all 41 real and fixture files', () => {
    expect(expected).toHaveLength(3 + 1 + 22 + 10 + 9);
  });

  it.each(expected)('%s is claimed by %s and no other adapter', (file, adapter) => {
    expect(claimants(file)).toEqual([adapter]);
  });

  it('does not claim files that are none of the formats', () => {
    const probes = [
      { fileName: 'notes.txt', head: 'hello world\n' },
      { fileName: 'data.json', head: '{"a": 1, "b": [1, 2, 3]}' },
      { fileName: 'rows.jsonl', head: '{"id": 1, "text": "x"}\n{"id": 2, "text": "y"}\n' },
      { fileName: 'list.json', head: '[1, 2, 3]' },
      {
        fileName: 'spider.json',
        head: headOf(`${DATA}/intercode/data/sql/spider/ic_spider_dev.json`),
      },
      { fileName: 'tasks.json', head: headOf(`${DATA}/tau2-bench/domains/retail/tasks.json`) },
      { fileName: 'users.json', head: headOf(`${DATA}/tau-bench-v1/envs/airline/data/users.json`) },
    ];
    for (const probe of probes) {
      expect(
        ADAPTERS.filter((adapter) => adapter.sniff(probe)).map((adapter) => adapter.format),
      ).toEqual([]);
    }
  });
});
