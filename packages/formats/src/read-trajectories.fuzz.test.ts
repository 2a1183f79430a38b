import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import * as fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { RecordLayout } from './adapter';
import { ADAPTERS } from './adapters';
import type { ImportEvent } from './read';
import { readTrajectories } from './read-trajectories';
import {
  chunked,
  collect,
  probeAdapter,
  summarize,
  tasksOf,
  utf8,
} from './stream/testing/probe-adapter';
import { sharedDataAvailable, sharedDataPath } from '@terrarium/schema/testing';

const REAL_PATHS = [
  sharedDataPath('tau2-bench/results/gpt-4.1_airline_default_gpt-4.1_1trials.json'),
  sharedDataPath('swe-agent/trajectories/demonstrations/function_calling_simple.traj'),
];
// InterCode (json-object-values results) joins the fuzzed files only where ../shared/data has it:
// its licence keeps it out of the repository.
if (sharedDataAvailable('intercode')) {
  REAL_PATHS.push(
    sharedDataPath('intercode/data/results/bash/gpt-4/ic_bash_multiturn_gpt-4_10_turns_fs_4.json'),
    sharedDataPath('intercode/data/results/sql/human/ic_sql_multiturn_human_10_turns.json'),
  );
}
// Shipped fixtures of the formats without files in ../shared/data (mini-swe-agent's is real, MIT).
REAL_PATHS.push(
  ...['mini-swe-agent/github_issue.traj.json', 'atif-terminus2-raw.trajectory.json'].map((name) =>
    fileURLToPath(new URL(`../fixtures/${name}`, import.meta.url)),
  ),
);
const REAL_FILES = REAL_PATHS.map((path) => ({ path, bytes: new Uint8Array(readFileSync(path)) }));
// The first 300 KB of the 4 MB tau-bench file: a truncated json-array.
const TAU_BENCH_HEAD = new Uint8Array(
  readFileSync(sharedDataPath('tau-bench-v1/historical_trajectories/gpt-4o-airline.json')).subarray(
    0,
    300_000,
  ),
);

function readWith(
  bytes: Uint8Array,
  layout: RecordLayout,
  sizes: readonly number[],
): Promise<ImportEvent[]> {
  return collect(
    readTrajectories(chunked(bytes, sizes), { fileName: 'fuzz' }, [probeAdapter(layout)]),
  );
}

/** Lines as JSONL readers count them: split on LF; blank means only spaces, tabs and CRs. */
function nonBlankLines(bytes: Uint8Array): number {
  let count = 0;
  let blank = true;
  for (const byte of bytes) {
    if (byte === 0x0a) {
      if (!blank) count++;
      blank = true;
    } else if (byte !== 0x20 && byte !== 0x09 && byte !== 0x0d) blank = false;
  }
  return blank ? count : count + 1;
}

/** The event grammar holds: format or fatal first, at most one fatal and last, placed quarantines. */
function expectWellFormed(events: readonly ImportEvent[], size: number): void {
  const types = events.map((event) => event.type);
  expect(['format', 'fatal']).toContain(types[0]);
  expect(types.filter((type) => type === 'fatal').length).toBeLessThanOrEqual(1);
  expect(types.includes('fatal') ? types.at(-1) : 'fatal').toBe('fatal');
  const misplaced = events.filter(
    (event) =>
      event.type === 'quarantine' &&
      (event.error.reason.length === 0 ||
        (event.error.line ?? 1) < 1 ||
        (event.error.byteOffset ?? 0) > size ||
        event.excerpt.length > 2048),
  );
  expect(misplaced).toEqual([]);
}

/** Every non-blank line is either a trajectory or a quarantine; only a blank file is fatal. */
function expectEveryLineAccounted(events: readonly ImportEvent[], bytes: Uint8Array): void {
  const lines = nonBlankLines(bytes);
  const accounted = events.filter(
    (event) => event.type === 'trajectory' || event.type === 'quarantine',
  ).length;
  const fatal = events.some((event) => event.type === 'fatal');
  expect({ accounted, fatal }).toEqual({ accounted: lines, fatal: lines === 0 });
}

const chunkSizes = fc.array(fc.integer({ min: 1, max: 300 }), { minLength: 1, maxLength: 8 });
const jsonLine = fc.jsonValue().map((value) => JSON.stringify(value));
const junkLine = fc.string({ maxLength: 40 }).filter((text) => !text.includes('\n'));

describe('readTrajectories under fuzzing', () => {
  it('yields the same events whatever the chunk sizes (1, 7, 4096, random)', async () => {
    const text =
      '{"a":1}\r\n{"a":"\\"\\\\"}\n\nnot json\n{"deep":' +
      '['.repeat(1200) +
      ']'.repeat(1200) +
      '}\n{"bad":"x.y"}\n{"é":"ü\\u00e9"}\n{"cut":';
    const bytes = utf8(text);
    const whole = summarize(await readWith(bytes, { kind: 'jsonl' }, [bytes.length]));
    expect(whole.length).toBe(8);
    for (const sizes of [[1], [7], [4096], [3, 1, 50, 2, 9]]) {
      expect(summarize(await readWith(bytes, { kind: 'jsonl' }, sizes))).toEqual(whole);
    }
    await fc.assert(
      fc.asyncProperty(chunkSizes, async (sizes) => {
        expect(summarize(await readWith(bytes, { kind: 'jsonl' }, sizes))).toEqual(whole);
      }),
      { numRuns: 50 },
    );
  });

  it('accounts for every non-blank JSONL line: good + quarantined = non-blank lines', async () => {
    let lineTotal = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.oneof(jsonLine, junkLine, fc.constantFrom('', '  ', '\r')), { maxLength: 30 }),
        fc.constantFrom('\n', '\r\n'),
        chunkSizes,
        async (lines, newline, sizes) => {
          const bytes = utf8(lines.join(newline));
          const events = await readWith(bytes, { kind: 'jsonl' }, sizes);
          expectWellFormed(events, bytes.length);
          expectEveryLineAccounted(events, bytes);
          lineTotal += nonBlankLines(bytes);
        },
      ),
      { numRuns: 200 },
    );
    // The generator really produced lines to account for.
    expect(lineTotal).toBeGreaterThan(200);
  });

  it('yields every element of random JSON arrays, objects and streams exactly', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.jsonValue(), { maxLength: 12 }),
        fc.constantFrom(0, 1, 2, '\t'),
        chunkSizes,
        async (values, indent, sizes) => {
          const expected = values.map((value) => JSON.stringify(value));
          const asArray = utf8(JSON.stringify(values, null, indent));
          expect(tasksOf(await readWith(asArray, { kind: 'json-array' }, sizes))).toEqual(expected);

          const keyed = Object.fromEntries(values.map((value, index) => [`k${index}`, value]));
          const asObject = utf8(JSON.stringify(keyed, null, indent));
          const objectEvents = await readWith(asObject, { kind: 'json-object-values' }, sizes);
          expect(tasksOf(objectEvents)).toEqual(expected);

          const stream = utf8(
            JSON.stringify({ info: values[0] ?? null, runs: values, tail: 1 }, null, indent),
          );
          const streamEvents = await readWith(
            stream,
            { kind: 'object-stream', key: 'runs' },
            sizes,
          );
          expect(tasksOf(streamEvents)).toEqual(expected);
          expect(streamEvents.filter((event) => event.type === 'quarantine')).toEqual([]);
        },
      ),
      { numRuns: 150 },
    );
  });

  it('never throws on mutated or truncated real files, whatever the chunking', async () => {
    const files = [...REAL_FILES.map((file) => file.bytes), TAU_BENCH_HEAD];
    const mutation = fc.record({
      file: fc.integer({ min: 0, max: files.length - 1 }),
      edits: fc.array(
        fc.record({
          at: fc.double({ min: 0, max: 1, noNaN: true }),
          byte: fc.integer({ min: 0, max: 255 }),
        }),
        { maxLength: 6 },
      ),
      keep: fc.double({ min: 0, max: 1, noNaN: true }),
      sizes: fc.array(fc.integer({ min: 1, max: 70_000 }), { minLength: 1, maxLength: 4 }),
    });
    let runs = 0;
    await fc.assert(
      fc.asyncProperty(mutation, async ({ file, edits, keep, sizes }) => {
        runs++;
        const original = files[file] ?? new Uint8Array(0);
        const bytes = original.slice(0, Math.ceil(original.length * keep));
        for (const edit of edits) {
          const at = Math.floor(edit.at * bytes.length);
          if (at < bytes.length) bytes[at] = edit.byte;
        }
        const events = await collect(
          readTrajectories(chunked(bytes, sizes), { fileName: 'fuzz' }, ADAPTERS),
        );
        expectWellFormed(events, bytes.length);
      }),
      { numRuns: 60 },
    );
    expect(runs).toBe(60);
  });

  it('accounts for every line of mutated JSONL built from real records', async () => {
    // The first 15 tau-bench v1 trajectories, one per line.
    const all: unknown = JSON.parse(
      readFileSync(
        sharedDataPath('tau-bench-v1/historical_trajectories/gpt-4o-airline.json'),
        'utf8',
      ),
    );
    const values: unknown[] = Array.isArray(all) ? all.slice(0, 15) : [];
    expect(values.length).toBe(15);
    const jsonlBytes = utf8(values.map((value) => JSON.stringify(value)).join('\n'));
    await fc.assert(
      fc.asyncProperty(
        fc.array(
          fc.record({
            at: fc.double({ min: 0, max: 1, noNaN: true }),
            byte: fc.integer({ min: 1, max: 255 }),
          }),
          { maxLength: 10 },
        ),
        fc.double({ min: 0, max: 1, noNaN: true }),
        chunkSizes,
        async (edits, keep, sizes) => {
          const bytes = jsonlBytes.slice(0, Math.ceil(jsonlBytes.length * keep));
          for (const edit of edits) {
            const at = Math.floor(edit.at * bytes.length);
            if (at < bytes.length) bytes[at] = edit.byte;
          }
          const events = await readWith(bytes, { kind: 'jsonl' }, sizes);
          expectWellFormed(events, bytes.length);
          if (events[0]?.type === 'fatal') return;
          const accounted = events.filter(
            (event) => event.type === 'trajectory' || event.type === 'quarantine',
          );
          expect(accounted.length).toBe(nonBlankLines(bytes));
        },
      ),
      { numRuns: 100 },
    );
  });
});
