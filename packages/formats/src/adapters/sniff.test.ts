import { readdirSync, statSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ADAPTERS } from './index';
import { headOf } from './testing/load-records';
import {
  sharedDataAvailable,
  sharedDataPath,
  UNSHIPPED_DATA_REASON,
} from '@terrarium/schema/testing';

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
  ...filesUnder(sharedDataPath('tau2-bench/results'))
    .filter((file) => file.endsWith('.json'))
    .map((file): [string, string] => [file, 'tau2-bench/object-stream']),
  [
    sharedDataPath('tau-bench-v1/historical_trajectories/gpt-4o-airline.json'),
    'tau-bench-v1/json-array',
  ],
  ...filesUnder(sharedDataPath('swe-agent'))
    .filter((file) => file.endsWith('.traj'))
    .map((file): [string, string] => [file, 'swe-agent/json-document']),
  [`${FIXTURES}openai-messages.jsonl`, 'openai-messages/jsonl'],
  [`${FIXTURES}sharegpt.jsonl`, 'sharegpt/jsonl'],
  [`${FIXTURES}sharegpt-array.json`, 'sharegpt/json-array'],
  [`${FIXTURES}agentworldbench.jsonl`, 'agentworldbench/jsonl'],
  [`${FIXTURES}agentworldbench-answered.jsonl`, 'agentworldbench/jsonl'],
  [`${FIXTURES}atif-terminus.trajectory.json`, 'atif/json-document'],
  [`${FIXTURES}atif-multi-tool.trajectory.json`, 'atif/json-document'],
  [`${FIXTURES}openhands-events.json`, 'openhands/json-document'],
  [`${FIXTURES}openhands-output.jsonl`, 'openhands/jsonl'],
  [`${FIXTURES}openhands-pairs.jsonl`, 'openhands/jsonl'],
  [`${FIXTURES}openhands-resolver.jsonl`, 'openhands/jsonl'],
  [`${FIXTURES}atif-terminus2-raw.trajectory.json`, 'atif/json-document'],
  [`${FIXTURES}atif-v1-0-no-call-ids.trajectory.json`, 'atif/json-document'],
  [`${FIXTURES}atif-name-duplicates.trajectory.json`, 'atif/json-document'],
  [`${FIXTURES}atif-v1-7-copied-context.trajectory.json`, 'atif/json-document'],
  ...['github_issue', 'local', 'greet-typo', 'count-files-toolcall'].map(
    (name): [string, string] => [
      `${FIXTURES}mini-swe-agent/${name}.traj.json`,
      'mini-swe-agent/json-document',
    ],
  ),
];

const HAS_INTERCODE = sharedDataAvailable('intercode');
const intercode: [string, string][] = HAS_INTERCODE
  ? filesUnder(sharedDataPath('intercode/data/results')).map((file): [string, string] => [
      file,
      file.includes('/human/')
        ? 'intercode-human-sql/json-object-values'
        : 'intercode/json-object-values',
    ])
  : [];

describe('format sniffing', () => {
  it('covers all 45 shipped real and fixture files', () => {
    expect(expected).toHaveLength(3 + 1 + 22 + 9 + 10);
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
        fileName: 'tasks.json',
        head: headOf(sharedDataPath('tau2-bench/domains/airline/tasks.json')),
      },
      {
        fileName: 'users.json',
        head: headOf(sharedDataPath('tau-bench-v1/envs/airline/data/users.json')),
      },
    ];
    for (const probe of probes) {
      expect(
        ADAPTERS.filter((adapter) => adapter.sniff(probe)).map((adapter) => adapter.format),
      ).toEqual([]);
    }
  });
});

describe.skipIf(!HAS_INTERCODE)(`format sniffing on InterCode ${UNSHIPPED_DATA_REASON}`, () => {
  it('covers the 10 InterCode results files', () => {
    expect(intercode).toHaveLength(10);
  });

  it.each(intercode)('%s is claimed by %s and no other adapter', (file, adapter) => {
    expect(claimants(file)).toEqual([adapter]);
  });

  it('does not claim the Spider task list', () => {
    const probe = {
      fileName: 'spider.json',
      head: headOf(sharedDataPath('intercode/data/sql/spider/ic_spider_dev.json')),
    };
    expect(ADAPTERS.filter((adapter) => adapter.sniff(probe))).toEqual([]);
  });
});
