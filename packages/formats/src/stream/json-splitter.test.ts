import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { RecordLayout } from '../adapter';
import { createSplitter } from './create-splitter';
import { DEFAULT_MAX_DEPTH, DEFAULT_MAX_RECORD_BYTES, type SplitItem } from './split-item';
import { utf8 } from './testing/probe-adapter';
import {
  sharedDataAvailable,
  sharedDataPath,
  UNSHIPPED_DATA_REASON,
} from '@terrarium/schema/testing';

const TAU_BENCH = sharedDataPath('tau-bench-v1/historical_trajectories/gpt-4o-airline.json');
const BASH_FS1 = sharedDataPath(
  'intercode/data/results/bash/gpt-4/ic_bash_multiturn_gpt-4_10_turns_fs_1.json',
);
const BASH_FS4 = sharedDataPath(
  'intercode/data/results/bash/gpt-4/ic_bash_multiturn_gpt-4_10_turns_fs_4.json',
);
const SQL_GPT4 = sharedDataPath(
  'intercode/data/results/sql/gpt-4/ic_sql_multiturn_gpt-4_10_turns.json',
);
const SQL_HUMAN = sharedDataPath(
  'intercode/data/results/sql/human/ic_sql_multiturn_human_10_turns.json',
);
const TAU2_RETAIL = sharedDataPath(
  'tau2-bench/results/gpt-4.1_retail_defautl_gpt-4.1_1trials.json',
);
const TAU2_TELECOM = sharedDataPath(
  'tau2-bench/results/gpt-4.1_telecom_default_gpt-4.1_1trials.json',
);
const TAU2_AIRLINE = sharedDataPath(
  'tau2-bench/results/gpt-4.1_airline_default_gpt-4.1_1trials.json',
);
const HAS_INTERCODE = sharedDataAvailable('intercode');
const SIMULATIONS: RecordLayout = { kind: 'object-stream', key: 'simulations' };
const LIMITS = { maxRecordBytes: DEFAULT_MAX_RECORD_BYTES, maxDepth: DEFAULT_MAX_DEPTH };

interface Found {
  kind: SplitItem['kind'];
  line: number;
  byteOffset: number;
  label: string | null;
  text: string;
}

const decoder = new TextDecoder();

/** Splits `bytes` fed in chunks of `sizes` (cycled), copying what each item shows. */
function split(
  bytes: Uint8Array,
  layout: RecordLayout,
  sizes: readonly number[] = [65536],
): Found[] {
  const splitter = createSplitter(layout, LIMITS);
  const found: Found[] = [];
  const keep = (items: SplitItem[]) => {
    for (const item of items) {
      const label = item.kind === 'record' ? item.key : 'name' in item ? item.name : null;
      const shown =
        item.kind === 'record' || item.kind === 'header'
          ? item.bytes
          : item.kind === 'unreadable'
            ? new Uint8Array(0)
            : item.excerpt;
      const text =
        item.kind === 'unreadable' || item.kind.startsWith('bad')
          ? `${'reason' in item ? item.reason : ''}|${decoder.decode(shown)}`
          : decoder.decode(shown);
      found.push({ kind: item.kind, line: item.line, byteOffset: item.byteOffset, label, text });
    }
  };
  let offset = 0;
  let turn = 0;
  while (offset < bytes.length) {
    const size = sizes[turn++ % sizes.length] ?? 1;
    keep(splitter.push(bytes.subarray(offset, offset + size)));
    offset += size;
  }
  keep(splitter.end());
  return found;
}

function recordsOf(found: readonly Found[]): Found[] {
  return found.filter((item) => item.kind === 'record');
}

function randomSizes(seed: number, count: number): number[] {
  // A small linear congruential generator: the same sizes on every run.
  let state = seed;
  return Array.from({ length: count }, () => {
    state = (state * 1103515245 + 12345) % 2147483648;
    return 1 + (state % 5000);
  });
}

describe('record splitting of the real files', () => {
  it('finds the 200 elements of the tau-bench v1 array, each exactly', () => {
    const bytes = readFileSync(TAU_BENCH);
    const found = split(bytes, { kind: 'json-array' });
    const records = recordsOf(found);
    expect(found.length).toBe(200);
    expect(records.length).toBe(200);
    expect(records[0]).toMatchObject({ line: 2, byteOffset: 4, label: null });
    const expected: unknown = JSON.parse(bytes.toString('utf8'));
    expect(records.map((record) => JSON.parse(record.text))).toEqual(expected);
  });

  it('streams the tau2 simulations after the timestamp, info and tasks headers', () => {
    for (const [file, count] of [
      [TAU2_RETAIL, 40],
      [TAU2_TELECOM, 40],
      [TAU2_AIRLINE, 20],
    ] as const) {
      const bytes = readFileSync(file);
      const found = split(bytes, SIMULATIONS);
      expect(found.filter((item) => item.kind === 'header').map((item) => item.label)).toEqual([
        'timestamp',
        'info',
        'tasks',
      ]);
      const records = recordsOf(found);
      expect(records.length).toBe(count);
      expect(found.length).toBe(count + 3);
      const whole: unknown = JSON.parse(bytes.toString('utf8'));
      const simulations: unknown = Reflect.get(Object(whole), 'simulations');
      expect(records.map((record) => JSON.parse(record.text))).toEqual(simulations);
    }
  });
});

describe.skipIf(!HAS_INTERCODE)(
  `record splitting of the InterCode files ${UNSHIPPED_DATA_REASON}`,
  () => {
    it('finds the values of the InterCode results objects with their keys', () => {
      const bash = recordsOf(split(readFileSync(BASH_FS1), { kind: 'json-object-values' }));
      expect(bash.length).toBe(60);
      const bashObject: unknown = JSON.parse(readFileSync(BASH_FS1, 'utf8'));
      expect(bash.map((record) => record.label)).toEqual(Object.keys(Object(bashObject)));
      expect(bash[0]).toMatchObject({ line: 2, byteOffset: 9, label: '0' });

      const sql = split(readFileSync(SQL_GPT4), { kind: 'json-object-values' });
      expect(sql.length).toBe(1034);
      expect(recordsOf(sql).length).toBe(1034);
      const sqlObject: unknown = JSON.parse(readFileSync(SQL_GPT4, 'utf8'));
      expect(recordsOf(sql).map((record) => JSON.parse(record.text))).toEqual(
        Object.values(Object(sqlObject)),
      );

      expect(recordsOf(split(readFileSync(SQL_HUMAN), { kind: 'json-object-values' })).length).toBe(
        15,
      );
    });

    it('splits a results object identically whatever the chunk sizes', () => {
      const { whole, chunked } = splitEachWay(BASH_FS4, { kind: 'json-object-values' });
      expect(chunked).toEqual([whole, whole, whole, whole]);
    });
  },
);

/** The file split at once, and split in chunks of 1, 7, 4096 and random sizes: all must agree. */
function splitEachWay(file: string, layout: RecordLayout) {
  const bytes = readFileSync(file);
  const whole = split(bytes, layout, [bytes.length]);
  const chunked = [[1], [7], [4096], randomSizes(42, 97)].map((sizes) =>
    split(bytes, layout, sizes),
  );
  return { whole, chunked };
}

describe('chunk-boundary independence', () => {
  it('splits real files identically whatever the chunk sizes', () => {
    const { whole, chunked } = splitEachWay(TAU2_AIRLINE, SIMULATIONS);
    expect(chunked).toEqual([whole, whole, whole, whole]);
    const tauBench = readFileSync(TAU_BENCH);
    expect(split(tauBench, { kind: 'json-array' }, randomSizes(7, 31))).toEqual(
      split(tauBench, { kind: 'json-array' }, [tauBench.length]),
    );
  });

  it('keeps escapes straight when a chunk ends between a backslash and what it escapes', () => {
    const values = ['a\\', '\\"', 'q"q', '\\\\\\', '"', ']', '},{', 'end\\\\"'];
    const text = JSON.stringify(values.map((value) => ({ [value]: value })));
    for (const size of [1, 2, 3, 5]) {
      const records = recordsOf(split(utf8(text), { kind: 'json-array' }, [size]));
      expect(records.map((record) => JSON.parse(record.text))).toEqual(
        values.map((value) => ({ [value]: value })),
      );
    }
  });
});

describe('structure errors', () => {
  it('treats `[1,,2]` as a missing value and a trailing comma as harmless', () => {
    const found = split(utf8('[1,,2,]'), { kind: 'json-array' });
    expect(found.map((item) => [item.kind, item.byteOffset, item.text])).toEqual([
      ['record', 1, '1'],
      ['bad-record', 3, 'missing value|'],
      ['record', 4, '2'],
    ]);
  });

  it('names the streamed array when an object-stream file is cut inside it', () => {
    const found = split(utf8('{"info": 1, "simulations": [{"a": 1}'), SIMULATIONS);
    expect(found.map((item) => [item.kind, item.line, item.byteOffset, item.text])).toEqual([
      ['header', 1, 9, '1'],
      ['record', 1, 28, '{"a": 1}'],
      [
        'bad-structure',
        1,
        36,
        'truncated: the file ends before the "simulations" array is closed|',
      ],
    ]);
  });
});
