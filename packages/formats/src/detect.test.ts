import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { detectFormat, topLevelShape } from './detect';
import { probeAdapter, utf8 } from './stream/testing/probe-adapter';
import {
  sharedDataAvailable,
  sharedDataPath,
  UNSHIPPED_DATA_REASON,
} from '@terrarium/schema/testing';

function probeOf(path: string) {
  const head = new TextDecoder().decode(readFileSync(path).subarray(0, 64 * 1024));
  return { fileName: path.split('/').at(-1) ?? path, head };
}

describe('topLevelShape', () => {
  it('tells the shapes apart', () => {
    expect(topLevelShape('')).toBe('empty');
    expect(topLevelShape(' \r\n\t')).toBe('empty');
    expect(topLevelShape(Uint8Array.of(0xef, 0xbb, 0xbf, 0x20))).toBe('empty');
    expect(topLevelShape('{"a":1}\n{"a":2}\n')).toBe('jsonl');
    expect(topLevelShape('[1]\n[2]')).toBe('jsonl');
    expect(topLevelShape('{"a":1}\n')).toBe('json-object');
    expect(topLevelShape('{\n  "a": 1\n}\n')).toBe('json-object');
    expect(topLevelShape('\n[\n  {"a": 1},\n  {"a": 2}\n]')).toBe('json-array');
    expect(topLevelShape('name: value\n')).toBe('text');
    expect(topLevelShape(Uint8Array.of(0x7b, 0x00, 0x7d))).toBe('binary');
    expect(topLevelShape(Uint8Array.of(0xff, 0xfe, 0x7b, 0x00))).toBe('binary');
    expect(
      topLevelShape(
        Uint8Array.from({ length: 100 }, (_, index) => (index % 3 === 0 ? 0x01 : 0x41)),
      ),
    ).toBe('binary');
  });

  it('sees the shapes of the real files', () => {
    expect(
      topLevelShape(
        readFileSync(
          sharedDataPath('tau2-bench/results/gpt-4.1_airline_default_gpt-4.1_1trials.json'),
        ),
      ),
    ).toBe('json-object');
    expect(
      topLevelShape(
        readFileSync(
          sharedDataPath('tau-bench-v1/historical_trajectories/gpt-4o-airline.json'),
        ).subarray(0, 65536),
      ),
    ).toBe('json-array');
    const lines = readFileSync(
      sharedDataPath(
        'swe-agent/tests/test_data/trajectories/gpt4__swe-bench-dev-easy_first_only__default__t-0.00__p-0.95__c-3.00__install-1/all_preds.jsonl',
      ),
    );
    expect(topLevelShape(lines)).toBe('json-object');
  });
});

describe('detectFormat', () => {
  it('recognises the real files with the real adapters', () => {
    expect(
      detectFormat(
        probeOf(sharedDataPath('tau2-bench/results/gpt-4.1_telecom_default_gpt-4.1_1trials.json')),
      ),
    ).toBe('tau2-bench');
    expect(
      detectFormat(
        probeOf(sharedDataPath('tau-bench-v1/historical_trajectories/gpt-4o-airline.json')),
      ),
    ).toBe('tau-bench-v1');
    expect(
      detectFormat(
        probeOf(sharedDataPath('swe-agent/trajectories/demonstrations/ctf/rev/rock.traj')),
      ),
    ).toBe('swe-agent');
    expect(detectFormat({ fileName: 'notes.md', head: '# Notes\nnothing here\n' })).toBeNull();
  });

  it('prefers, among adapters that claim a file, one whose layout fits its shape', () => {
    const adapters = [
      probeAdapter({ kind: 'json-array' }, { format: 'sharegpt' }),
      probeAdapter({ kind: 'jsonl' }, { format: 'openai-messages' }),
    ];
    expect(detectFormat({ fileName: 'a.jsonl', head: '{"a":1}\n{"a":2}\n' }, adapters)).toBe(
      'openai-messages',
    );
    expect(detectFormat({ fileName: 'a.json', head: '[{"a":1}]' }, adapters)).toBe('sharegpt');
  });

  it('treats a sniffer that throws as not claiming the file', () => {
    const throwing = probeAdapter(
      { kind: 'jsonl' },
      {
        format: 'atif',
        sniff: () => {
          throw new Error('boom');
        },
      },
    );
    const plain = probeAdapter({ kind: 'jsonl' }, { format: 'sharegpt' });
    expect(
      detectFormat({ fileName: 'a', head: new TextDecoder().decode(utf8('{}\n')) }, [
        throwing,
        plain,
      ]),
    ).toBe('sharegpt');
  });
});

describe.skipIf(!sharedDataAvailable('intercode'))(
  `detectFormat on InterCode ${UNSHIPPED_DATA_REASON}`,
  () => {
    it('recognises the InterCode results and the human SQL sessions', () => {
      expect(
        detectFormat(
          probeOf(
            sharedDataPath('intercode/data/results/bash/gpt-3.5/ic_bash_react_10_turns_fs_2.json'),
          ),
        ),
      ).toBe('intercode');
      expect(
        detectFormat(
          probeOf(
            sharedDataPath('intercode/data/results/sql/human/ic_sql_multiturn_human_10_turns.json'),
          ),
        ),
      ).toBe('intercode-human-sql');
    });
  },
);
