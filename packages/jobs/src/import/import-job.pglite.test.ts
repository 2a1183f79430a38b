import { createWriteStream } from 'node:fs';
import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { once } from 'node:events';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { openStore, type Store } from '@terrarium/db';
import { sharedDataPath } from '@terrarium/schema/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawnWorkerChild } from '../test-support/spawn-worker';
import { ImportCheckpoint } from './import-protocol';
import { runImportJob } from './import-job';
import { openMemoryStore, seededDataDir } from '@terrarium/db/test-store';

const SOURCE = sharedDataPath('tau-bench-v1/historical_trajectories/gpt-4o-airline.json');
const CHILD = resolve(import.meta.dirname, '../test-support/import-child.ts');
const COPIES = 3;

/**
 * The real tau-bench airline file repeated with fresh ids (a new trial number and suffixed call
 * ids per copy), as one JSON array: several 2 MB groups, so a kill lands between two of them.
 */
async function writeReplica(file: string): Promise<void> {
  const records: unknown = JSON.parse(await readFile(SOURCE, 'utf8'));
  if (!Array.isArray(records)) throw new Error(`${SOURCE}: expected a JSON array`);
  const out = createWriteStream(file);
  out.write('[\n');
  let first = true;
  for (let copy = 0; copy < COPIES; copy++) {
    for (const record of records) {
      const text = JSON.stringify(record)
        .replace(/"trial":(\d+)/, (_m, trial: string) => `"trial":${Number(trial) + 4 * copy}`)
        .replace(/"(call_[A-Za-z0-9]+)"/g, (_m, id: string) => `"${id}_${copy}"`);
      if (!first) out.write(',\n');
      out.write(text);
      first = false;
    }
  }
  out.end('\n]\n');
  await once(out, 'finish');
}

/** Every trajectory of a dataset: external id, steps, transitions and the stored source record. */
async function contentsOf(store: Store, dataset: string) {
  const summary = await store.getDatasetByName(dataset);
  if (summary === null) return null;
  const rows: string[] = [];
  for (let offset = 0; ; offset += 1000) {
    const page = await store.listTrajectories({ datasetId: summary.id }, { offset, limit: 1000 });
    for (const row of page.rows) {
      const source = await store.getSourceRecord(row.id);
      const steps = await store.getSteps(row.id, 0, 1000);
      rows.push(
        JSON.stringify([
          row.externalId,
          row.stepCount,
          row.transitionCount,
          source?.record,
          steps.steps,
        ]),
      );
    }
    if (offset + 1000 >= page.total) break;
  }
  return {
    trajectories: summary.trajectories,
    transitions: summary.transitions,
    quarantined: summary.quarantined,
    rows: rows.toSorted(),
  };
}

describe('an import job killed with SIGKILL mid-file', () => {
  let dir: string;
  let replica: string;
  const dataDirs: string[] = [];

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'terrarium-import-job-'));
    replica = join(dir, 'tau-bench-airline-x3.json');
    await writeReplica(replica);
  });

  afterAll(async () => {
    for (const folder of [dir, ...dataDirs]) await rm(folder, { recursive: true, force: true });
  });

  it('resumes from its last stored group and ends with exactly the records of a clean import', async () => {
    const { size } = await stat(replica);
    const spec = {
      dataset: 'airline',
      format: null,
      files: [{ name: 'tau-bench-airline-x3.json', path: replica, size }],
      ownsFiles: false,
    };

    const cleanDir = await seededDataDir('import-clean');
    dataDirs.push(cleanDir);
    const clean = await openStore({ dataDir: cleanDir });
    let expected: Awaited<ReturnType<typeof contentsOf>>;
    try {
      const job = await clean.createImportJob(spec);
      expect(await runImportJob(clean, job.id)).toMatchObject({ status: 'done' });
      expected = await contentsOf(clean, 'airline');
    } finally {
      await clean.close();
    }
    expect(expected?.trajectories).toBe(COPIES * 200);

    const killedDir = await seededDataDir('import-killed');
    dataDirs.push(killedDir);
    const before = await openStore({ dataDir: killedDir });
    const job = await before.createImportJob(spec);
    await before.close();

    const child = spawnWorkerChild([killedDir, job.id], CHILD);
    // Two groups committed, more to come: the file is several groups long.
    await child.waitForLine(
      () => child.lines().filter((line) => line.startsWith('stored ')).length >= 2,
    );
    child.signal('SIGKILL');
    const exit = await child.exited;
    expect(exit.signal).toBe('SIGKILL');
    expect(child.lines().some((line) => line.startsWith('done'))).toBe(false);

    const store = await openStore({ dataDir: killedDir });
    try {
      const interrupted = await store.getImportJob(job.id);
      expect(interrupted?.status).toBe('running');
      const checkpoint = ImportCheckpoint.parse(interrupted?.checkpoint);
      // Part of the file is stored (invisibly), part is not.
      expect(checkpoint.report.trajectories).toBeGreaterThan(0);
      expect(checkpoint.report.trajectories).toBeLessThan(COPIES * 200);
      expect(await store.getDatasetByName('airline')).toBeNull();

      const resumed = await runImportJob(store, job.id);
      expect(resumed.status).toBe('done');
      expect(resumed.report).toMatchObject({ trajectories: COPIES * 200, quarantined: 0 });
      const after = await store.getImportJob(job.id);
      expect(after).toMatchObject({ status: 'done', resumes: 1 });
      expect(await contentsOf(store, 'airline')).toEqual(expected);
    } finally {
      await store.close();
    }
  }, 600_000);

  it('discards everything it stored when canceled midway, and says so', async () => {
    const { size } = await stat(replica);
    const store = await openMemoryStore();
    try {
      const job = await store.createImportJob({
        dataset: 'canceled',
        format: null,
        files: [{ name: 'tau-bench-airline-x3.json', path: replica, size }],
        ownsFiles: false,
      });
      const cancel = new AbortController();
      let storedBeforeCancel = 0;
      const outcome = await runImportJob(store, job.id, {
        cancel: cancel.signal,
        onStored: (checkpoint) => {
          storedBeforeCancel = checkpoint.report.trajectories;
          cancel.abort();
        },
      });
      expect(storedBeforeCancel).toBeGreaterThan(0);
      expect(outcome).toEqual({ status: 'canceled', report: null, error: null });
      const canceled = await store.getImportJob(job.id);
      expect(canceled).toMatchObject({ status: 'canceled', batchStatus: null });
      expect(await store.getDatasetByName('canceled')).toBeNull();
      // The batch and its rows are deleted, not merely hidden.
      await expect(store.resumeImport(canceled?.batchId ?? '1')).rejects.toThrow(
        'is not an unfinished import',
      );
    } finally {
      await store.close();
    }
  }, 300_000);

  it('keeps nothing when canceled after its last group is stored, just before its commit', async () => {
    const { size } = await stat(replica);
    const records: unknown = JSON.parse(await readFile(SOURCE, 'utf8'));
    const total = COPIES * (Array.isArray(records) ? records.length : 0);
    const store = await openMemoryStore();
    try {
      const job = await store.createImportJob({
        dataset: 'late-cancel',
        format: null,
        files: [{ name: 'tau-bench-airline-x3.json', path: replica, size }],
        ownsFiles: false,
      });
      let canceledAt = 0;
      const outcome = await runImportJob(store, job.id, {
        onStored: (checkpoint) => {
          // As the Import page's Cancel does (`imports.cancel`): the job's status, in the store,
          // once every trajectory is stored and the commit is next.
          if (checkpoint.report.trajectories < total) return;
          canceledAt = checkpoint.report.trajectories;
          void store.finishImportJob(job.id, 'canceled', {}, ['queued', 'running']);
        },
      });
      expect(canceledAt).toBe(total);
      // Before, the commit went ahead: the job read "canceled; nothing was kept" over a dataset
      // of every trajectory.
      expect(outcome).toEqual({ status: 'canceled', report: null, error: null });
      expect(await store.getImportJob(job.id)).toMatchObject({ status: 'canceled' });
      expect(await store.getDatasetByName('late-cancel')).toBeNull();
      expect(await store.listDatasets()).toEqual([]);
    } finally {
      await store.close();
    }
  }, 300_000);

  it('stays done when canceled once committed: a cancel and a commit cannot both win', async () => {
    const { size } = await stat(replica);
    const store = await openMemoryStore();
    try {
      const job = await store.createImportJob({
        dataset: 'done-first',
        format: null,
        files: [{ name: 'tau-bench-airline-x3.json', path: replica, size }],
        ownsFiles: false,
      });
      const outcome = await runImportJob(store, job.id);
      expect(outcome.status).toBe('done');
      expect(await store.finishImportJob(job.id, 'canceled', {}, ['queued', 'running'])).toBe(
        false,
      );
      expect(await store.getImportJob(job.id)).toMatchObject({
        status: 'done',
        report: outcome.report,
      });
      expect((await store.getDatasetByName('done-first'))?.trajectories).toBe(
        outcome.report?.trajectories,
      );
    } finally {
      await store.close();
    }
  }, 300_000);
});
