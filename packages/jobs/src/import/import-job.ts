import { createReadStream } from 'node:fs';
import { rm } from 'node:fs/promises';
import {
  ImportJobNotRunning,
  type ImportBatch,
  type ImportJobRecord,
  type Store,
} from '@terrarium/db';
import { ImportReport, SourceFormat } from '@terrarium/schema';
import { ImportCheckpoint } from './import-protocol';
import {
  reportOf,
  runImport,
  settleImport,
  type ImportFile,
  type ImportProgress,
} from './import-run';

export interface ImportJobOutcome {
  /** `interrupted`: the process is stopping; the job stays running and resumes on the next start. */
  status: 'done' | 'failed' | 'canceled' | 'interrupted';
  report: ImportReport | null;
  error: string | null;
}

export interface RunImportJobOptions {
  /** The worker is stopping: the job is left as it is, to resume from its last checkpoint. */
  signal?: AbortSignal;
  onProgress?: (progress: ImportProgress) => void;
  /** Called after each group is stored, with what is stored so far. */
  onStored?: (checkpoint: ImportCheckpoint) => void;
  /** The user cancels (Ctrl-C in the CLI): as a cancel in the store, without waiting for a poll. */
  cancel?: AbortSignal;
  /** Called when the job starts, with what its checkpoint says is stored already. */
  onStart?: (job: ImportJobRecord, resumedFrom: ImportCheckpoint | null) => void;
  /** How often a running job looks for a cancel in the store (default 500 ms). */
  statusPollMs?: number;
}

/** Bytes per read of an import's files. */
const CHUNK_BYTES = 1 << 20;

async function* fileChunks(path: string): AsyncGenerator<Uint8Array> {
  for await (const chunk of createReadStream(path, { highWaterMark: CHUNK_BYTES })) {
    if (chunk instanceof Uint8Array) yield chunk;
  }
}

class Canceled extends Error {
  override readonly name = 'Canceled';
}

function checkpointOf(job: ImportJobRecord): ImportCheckpoint | null {
  if (job.checkpoint === null) return null;
  const parsed = ImportCheckpoint.safeParse(job.checkpoint);
  return parsed.success ? parsed.data : null;
}

async function deleteOwnedFiles(job: ImportJobRecord): Promise<void> {
  if (!job.ownsFiles) return;
  await Promise.all(job.files.map((file) => rm(file.path, { force: true })));
}

/**
 * Runs (or resumes) a stored import job to its end: reads its files from the last checkpoint,
 * stores each group with the next checkpoint, and commits the batch at the end, so the dataset
 * appears whole and once. A cancel (the job's status set to `canceled`) discards the batch; a
 * failure too, recording the error. `signal` (the process stopping) leaves everything in place
 * for the next start to resume.
 */
export async function runImportJob(
  store: Store,
  jobId: string,
  options: RunImportJobOptions = {},
): Promise<ImportJobOutcome> {
  const job = await store.startImportJob(jobId);
  if (job === null) return outcomeOfFinished(await store.getImportJob(jobId));
  const format = job.format === null ? undefined : SourceFormat.parse(job.format);
  let resume = checkpointOf(job);
  // The batch was committed but the process stopped before the job was marked done.
  if (job.batchStatus === 'complete' && resume !== null) {
    const report = reportOf(job.dataset, resume);
    await store.finishImportJob(jobId, 'done', { report }, ['running']);
    await deleteOwnedFiles(job);
    return { status: 'done', report, error: null };
  }
  let batch: ImportBatch;
  if (job.batchId !== null && job.batchStatus === 'importing') {
    batch = await store.resumeImport(job.batchId);
  } else {
    // No batch yet, or it is gone: start over from the first file.
    resume = null;
    batch = await store.beginImport(job.dataset);
    await store.setImportJobBatch(jobId, batch.batchId);
  }
  options.onStart?.(job, resume);

  const stop = new AbortController();
  const stopWith = (reason: Error) => {
    if (!stop.signal.aborted) stop.abort(reason);
  };
  const onStopping = () => stopWith(new Error('the worker is stopping'));
  const onCancel = () => {
    stopWith(new Canceled('the import was canceled'));
    void store.finishImportJob(jobId, 'canceled', {}, ['queued', 'running']);
  };
  options.signal?.addEventListener('abort', onStopping, { once: true });
  options.cancel?.addEventListener('abort', onCancel, { once: true });
  if (options.signal?.aborted === true) onStopping();
  if (options.cancel?.aborted === true) onCancel();
  const poll = setInterval(() => {
    void store.getImportJob(jobId).then(
      (current) => {
        if (current?.status === 'canceled') stopWith(new Canceled('the import was canceled'));
      },
      () => {},
    );
  }, options.statusPollMs ?? 500);

  const files: ImportFile[] = job.files.map((file) => ({
    name: file.name,
    size: file.size,
    chunks: fileChunks(file.path),
  }));
  try {
    const final = await runImport(batch, files, {
      dataset: job.dataset,
      ...(format === undefined ? {} : { format }),
      signal: stop.signal,
      resume,
      jobId,
      ...(options.onProgress === undefined ? {} : { onProgress: options.onProgress }),
      ...(options.onStored === undefined ? {} : { onStored: options.onStored }),
    });
    const report = await settleImport(batch, job.dataset, final, jobId);
    // Marked done by the commit (or, with nothing to commit, here); the report again with any
    // warning of the upkeep after the commit.
    await store.finishImportJob(jobId, 'done', { report }, ['running', 'done']);
    await deleteOwnedFiles(job);
    return { status: 'done', report, error: null };
  } catch (error) {
    // Canceled while reading, or just before the commit (which then made nothing visible).
    const canceled = error instanceof ImportJobNotRunning || stop.signal.reason instanceof Canceled;
    if (stop.signal.aborted && !canceled) {
      // Stopping, not failing: the rows so far stay, invisible, for the resume.
      await batch.abandon();
      return { status: 'interrupted', report: null, error: null };
    }
    await batch.abort().catch(() => {
      // An uncommitted batch is discarded on the next open anyway.
    });
    await deleteOwnedFiles(job);
    if (canceled) {
      await store.finishImportJob(jobId, 'canceled', {}, ['running', 'canceled']);
      return { status: 'canceled', report: null, error: null };
    }
    const message = error instanceof Error ? error.message : String(error);
    await store.finishImportJob(jobId, 'failed', { error: message }, ['running']);
    return { status: 'failed', report: null, error: message };
  } finally {
    clearInterval(poll);
    options.signal?.removeEventListener('abort', onStopping);
    options.cancel?.removeEventListener('abort', onCancel);
  }
}

/** The outcome a finished (or unknown) job already has. */
function outcomeOfFinished(job: ImportJobRecord | null): ImportJobOutcome {
  if (job === null) return { status: 'failed', report: null, error: 'no such import job' };
  const status = job.status === 'queued' || job.status === 'running' ? 'failed' : job.status;
  return { status, report: reportOfJob(job), error: job.error };
}

/** A finished job's stored report, if it has one. */
export function reportOfJob(job: ImportJobRecord): ImportReport | null {
  const report = ImportReport.safeParse(job.report);
  return report.success ? report.data : null;
}
