import { readFile } from 'node:fs/promises';
import type { Store } from '@terrarium/db';
import { openMemoryStore } from '@terrarium/db/test-store';
import { alreadyStoredNote, importExitCode, unreadFilesNote } from '@terrarium/schema';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  INTERCODE_SQL,
  JSONL_WITH_ONE_BAD_LINE,
  TAU2_AIRLINE,
  TAU2_RETAIL,
  TAU2_TELECOM,
  TAU_BENCH_AIRLINE,
  textFile,
} from '../testing/sample-files';
import { sharedDataAvailable, UNSHIPPED_DATA_REASON } from '@terrarium/schema/testing';
import { collectDataFiles, readDataFile } from './collect-files';
import { importFiles, type ImportProgress } from './import-files';

// PGlite takes seconds to start on a busy machine; one store serves every test, each its own dataset.
const SLOW = { timeout: 120_000 };

async function realFiles(...paths: string[]) {
  return (await collectDataFiles(paths)).map(readDataFile);
}

describe('importFiles', () => {
  let store: Store;
  beforeAll(async () => {
    store = await openMemoryStore();
  }, 120_000);
  afterAll(async () => {
    await store.close();
  });

  async function datasetNamed(name: string) {
    return (await store.listDatasets()).find((dataset) => dataset.name === name);
  }

  it(
    'imports the tau2 retail run whole and reports progress up to the file size',
    SLOW,
    async () => {
      const progress: ImportProgress[] = [];
      const report = await importFiles(store, await realFiles(TAU2_RETAIL), {
        dataset: 'retail',
        onProgress: (update) => progress.push(update),
      });
      expect(report).toEqual({
        dataset: 'retail',
        format: 'tau2-bench',
        trajectories: 40,
        transitions: 299,
        quarantined: 0,
        errors: [],
      });
      expect(importExitCode(report)).toBe(0);
      expect(progress.at(-1)?.bytesRead).toBe(1_723_122);
      expect(progress.at(-1)?.totalBytes).toBe(1_723_122);
      expect(await datasetNamed('retail')).toMatchObject({ trajectories: 40, transitions: 299 });
    },
  );

  it(
    'stores a file imported again into the same dataset only once, and says so',
    SLOW,
    async () => {
      const first = await importFiles(store, await realFiles(TAU2_AIRLINE), { dataset: 'twice' });
      expect(first.warnings).toBeUndefined();
      expect(first.alreadyStored).toBeUndefined();
      // Another file into the same dataset repeats nothing.
      const other = await importFiles(store, await realFiles(TAU2_TELECOM), { dataset: 'twice' });
      expect(other.warnings).toBeUndefined();
      const stored = await datasetNamed('twice');
      const again = await importFiles(store, await realFiles(TAU2_AIRLINE), { dataset: 'twice' });
      expect(again).toMatchObject({
        trajectories: 0,
        transitions: 0,
        alreadyStored: 20,
        errors: [],
      });
      expect(again.warnings).toBeUndefined();
      expect(alreadyStoredNote(again)).toBe(
        'All 20 trajectories read were in twice already, byte for byte (imported before?), and were not stored again.',
      );
      // Nothing new, and nothing failed: the file is in the dataset.
      expect(importExitCode(again)).toBe(0);
      expect(await datasetNamed('twice')).toEqual(stored);
      // With a new file beside it, the new one is stored and the repeated one is not.
      const mixed = await importFiles(store, await realFiles(TAU2_AIRLINE, TAU2_RETAIL), {
        dataset: 'twice',
      });
      expect(mixed).toMatchObject({ trajectories: 40, transitions: 299, alreadyStored: 20 });
      expect(alreadyStoredNote(mixed)).toBe(
        '20 of the trajectories read were in twice already, byte for byte (imported before?), and were not stored again.',
      );
      expect(importExitCode(mixed)).toBe(0);
      expect(await datasetNamed('twice')).toMatchObject({
        trajectories: (stored?.trajectories ?? 0) + 40,
        transitions: (stored?.transitions ?? 0) + 299,
      });
      // Into another dataset it is no repeat.
      const elsewhere = await importFiles(store, await realFiles(TAU2_AIRLINE), {
        dataset: 'once',
      });
      expect(elsewhere).toMatchObject({ trajectories: 20 });
      expect(elsewhere.warnings).toBeUndefined();
    },
  );

  it('writes files whose trajectories fill more than one insert group', SLOW, async () => {
    // 9.8 MB of trajectories: several of the 2 MB insert groups.
    const report = await importFiles(
      store,
      await realFiles(TAU2_RETAIL, TAU2_TELECOM, TAU2_AIRLINE, TAU_BENCH_AIRLINE),
      { dataset: 'four' },
    );
    expect(report).toMatchObject({ trajectories: 300, transitions: 2300 });
    const datasetId = (await datasetNamed('four'))?.id;
    const page = await store.listTrajectories({ datasetId }, { offset: 0, limit: 1 });
    expect(page.total).toBe(300);
  });

  it(
    'quarantines a bad line, keeps the good ones, and counts the files in no known format',
    SLOW,
    async () => {
      const retail = await readFile(TAU2_RETAIL, 'utf8');
      const files = [
        textFile('chat.jsonl', JSONL_WITH_ONE_BAD_LINE),
        textFile('notes.bin', '\u0000\u0001\u0002 not a trajectory format'),
        ...(await realFiles(TAU2_AIRLINE)),
        // Cut off mid-file, as a copy interrupted by a full disk leaves it.
        textFile('cut.json', retail.slice(0, 800_000)),
      ];
      const report = await importFiles(store, files, { dataset: 'mixed' });
      expect(report).toMatchObject({
        dataset: 'mixed',
        format: 'mixed',
        trajectories: 40,
        transitions: 270,
        quarantined: 2,
        unknownFormatFiles: 1,
      });
      expect(report.stoppedFiles).toBeUndefined();
      // A file cut off loses only its last record, quarantined; a binary file is read not at all:
      // it is in no known format, not a file whose reading stopped midway.
      expect(report.errors.map((error) => [error.file, error.line, error.reason])).toEqual([
        [
          'chat.jsonl',
          2,
          `invalid JSON: Unexpected token 'o', "{"messages": [oops" is not valid JSON`,
        ],
        ['notes.bin', null, 'binary file: NUL byte at byte offset 0'],
        ['cut.json', 17382, 'truncated: the file ends inside this record'],
      ]);
      expect(unreadFilesNote(report)).toBe('1 file is in no known format');
      expect(importExitCode(report)).toBe(2);
      const dataset = await datasetNamed('mixed');
      expect(dataset).toMatchObject({ trajectories: 40, quarantined: 2 });
      const quarantined = await store.listQuarantined(dataset?.id ?? '');
      expect(quarantined.map((record) => [record.file, record.line])).toEqual([
        ['chat.jsonl', 2],
        ['cut.json', 17382],
      ]);
    },
  );

  it(
    'tells a file in no known format from one not of the format it was forced to',
    SLOW,
    async () => {
      // The real tau-bench airline array forced as openai-messages: its first 20 records fail, so
      // reading stops there; the binary file is in no format at all, forced or not.
      const report = await importFiles(
        store,
        [
          textFile('notes.bin', '\u0000\u0001\u0002 not a trajectory format'),
          ...(await realFiles(TAU_BENCH_AIRLINE)),
        ],
        { dataset: 'forced', format: 'openai-messages' },
      );
      expect(report).toMatchObject({ trajectories: 0, unknownFormatFiles: 1, wrongFormatFiles: 1 });
      // Neither stopped midway, and no file was read as openai-messages.
      expect(report.stoppedFiles).toBeUndefined();
      expect(report.format).toBeNull();
      expect(report.errors.map((error) => [error.file, error.reason])).toEqual([
        ['notes.bin', 'binary file: NUL byte at byte offset 0'],
        [
          'gpt-4o-airline.json',
          'not openai-messages: its first 20 records all failed as openai-messages (the first, line 1: invalid JSON: Unexpected end of JSON input); left to detection, it reads as tau-bench-v1',
        ],
      ]);
      expect(unreadFilesNote(report)).toBe(
        '1 file is not of the format given with --format, 1 file is in no known format',
      );
    },
  );

  it('writes nothing when no trajectory could be read', SLOW, async () => {
    const report = await importFiles(store, [textFile('random.txt', 'hello world\n')], {
      dataset: 'nothing',
    });
    expect(report.trajectories).toBe(0);
    expect(report.format).toBeNull();
    expect(report.errors).toHaveLength(1);
    expect([report.unknownFormatFiles, report.stoppedFiles]).toEqual([1, undefined]);
    expect(importExitCode(report)).toBe(1);
    expect(await datasetNamed('nothing')).toBeUndefined();
  });

  it(
    'writes groups in parallel when the store allows it, and a failed group fails the import only after every write ended, leaving nothing',
    SLOW,
    async () => {
      let inFlight = 0;
      let mostInFlight = 0;
      let writesWhenAborted = -1;
      let calls = 0;
      // The first two groups wait for the third to start: an importer that waited for each write
      // before reading on would never start it, and this test would time out.
      let thirdStarted: (() => void) | undefined;
      const third = new Promise<void>((resolve) => {
        thirdStarted = resolve;
      });
      // The real store's batch, saying it takes 3 writers (as PostgreSQL's does) and failing its
      // third group the way a lost connection would.
      const parallelStore: Store = {
        ...store,
        beginImport: async (name) => {
          const batch = await store.beginImport(name);
          return {
            datasetId: batch.datasetId,
            batchId: batch.batchId,
            parallelWrites: 3,
            addGroup: async (group) => {
              if (group.encoded === null) return batch.addGroup(group);
              calls++;
              const call = calls;
              inFlight++;
              mostInFlight = Math.max(mostInFlight, inFlight);
              try {
                if (call < 3) await third;
                if (call === 3) thirdStarted?.();
                await batch.addGroup(group);
                if (call === 3) throw new Error('connection lost');
              } finally {
                inFlight--;
              }
            },
            addTrajectories: (trajectories) => batch.addTrajectories(trajectories),
            addQuarantined: (records) => batch.addQuarantined(records),
            dropRepeated: () => batch.dropRepeated(),
            commit: () => batch.commit(),
            abandon: () => batch.abandon(),
            abort: () => {
              writesWhenAborted = inFlight;
              return batch.abort();
            },
          };
        },
      };
      const importing = importFiles(
        parallelStore,
        await realFiles(TAU2_RETAIL, TAU2_TELECOM, TAU2_AIRLINE, TAU_BENCH_AIRLINE),
        { dataset: 'parallel-failed' },
      );
      await expect(importing).rejects.toThrow('connection lost');
      expect(mostInFlight).toBe(3);
      expect(writesWhenAborted).toBe(0);
      expect(await datasetNamed('parallel-failed')).toBeUndefined();
    },
  );

  it('discards the whole batch when aborted midway', SLOW, async () => {
    const stop = new AbortController();
    const importing = importFiles(store, await realFiles(TAU2_RETAIL, TAU2_AIRLINE), {
      dataset: 'aborted',
      signal: stop.signal,
      onProgress: ({ file }) => {
        if (file.includes('airline')) stop.abort(new Error('stopped by the test'));
      },
    });
    await expect(importing).rejects.toThrow('stopped by the test');
    expect(await datasetNamed('aborted')).toBeUndefined();
  });
});

describe('importFiles when the upkeep after the commit fails', () => {
  it('reports the stored import with a warning, not as failed', SLOW, async () => {
    const store = await openMemoryStore();
    try {
      // The merge of a search index that is gone fails as a full disk failed there: after the
      // rows were committed (a walk saw "import failed" for a dataset stored whole).
      await store.jobDb().executeSql('DROP INDEX step_pages_lexemes');
      const report = await importFiles(store, await realFiles(TAU2_RETAIL), { dataset: 'kept' });
      expect(report).toEqual({
        dataset: 'kept',
        format: 'tau2-bench',
        trajectories: 40,
        transitions: 299,
        quarantined: 0,
        errors: [],
        warnings: [
          {
            file: '*',
            reason:
              'the import is stored whole, but the store\'s upkeep after it failed (relation "step_pages_lexemes" does not exist): searches may be slow until the next import',
          },
        ],
      });
      expect(importExitCode(report)).toBe(0);
      expect((await store.listDatasets()).map((d) => [d.name, d.trajectories])).toEqual([
        ['kept', 40],
      ]);
    } finally {
      await store.close();
    }
  });
});

describe.skipIf(!sharedDataAvailable('intercode'))(
  `importFiles on InterCode ${UNSHIPPED_DATA_REASON}`,
  () => {
    let store: Store;
    beforeAll(async () => {
      store = await openMemoryStore();
    }, 120_000);
    afterAll(async () => {
      await store.close();
    });

    it('writes a file with more trajectories than one insert group', SLOW, async () => {
      const report = await importFiles(store, await realFiles(INTERCODE_SQL), { dataset: 'sql' });
      expect(report).toMatchObject({ format: 'intercode', trajectories: 1034, transitions: 5867 });
      const datasetId = (await store.listDatasets()).find((dataset) => dataset.name === 'sql')?.id;
      const page = await store.listTrajectories({ datasetId }, { offset: 0, limit: 1 });
      expect(page.total).toBe(1034);
    });
  },
);
