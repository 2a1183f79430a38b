import type { Worker } from 'node:worker_threads';
import type { ImportBatch, ImportGroup, Store } from '@terrarium/db';
import type { ImportReport, SourceFormat } from '@terrarium/schema';
import { siblingModule, startWorkerThread } from '../worker-thread';
import { WorkerMessage, type ImportCheckpoint, type ImporterMessage } from './import-protocol';

export interface ImportFile {
  /** As the user named it; appears in errors and in each trajectory's source. */
  name: string;
  chunks: AsyncIterable<Uint8Array>;
  size?: number;
}

export interface ImportProgress {
  file: string;
  /** Bytes of `file` read so far. */
  bytesRead: number;
  totalBytes?: number;
  /** Trajectories read so far, over all files of this import. */
  trajectories: number;
}

export interface ImportOptions {
  dataset: string;
  /** Skip detection and read every file as this format. */
  format?: SourceFormat;
  onProgress?: (progress: ImportProgress) => void;
  signal?: AbortSignal;
}

export interface RunImportOptions extends ImportOptions {
  /** Continue an interrupted job from its last checkpoint (files before it are not read). */
  resume?: ImportCheckpoint | null;
  /** A job's id: each group's checkpoint is stored with it, in the group's transaction. */
  jobId?: string;
  /** Called after each group is stored, with what is stored so far. */
  onStored?: (checkpoint: ImportCheckpoint) => void;
}

/** Chunk bytes sent to the reading thread and not yet taken: enough to keep it busy while the
 * database (PGlite: this thread) writes a group, small enough to bound memory. */
const MAX_CHUNK_BYTES_IN_FLIGHT = 8 * 1024 * 1024;
/** Encoded groups waiting here for the database, beyond those being written. */
const MAX_GROUPS_WAITING = 2;

const WORKER_URL = siblingModule(import.meta.url, 'import-worker');

/**
 * Streams every file through the reading thread (import-worker.ts) into `batch`, one transaction
 * per group, and returns the final state (the report). Does not commit or abort the batch.
 * Rejects when `signal` aborts, the worker fails or the store fails; groups still being written
 * are settled first, so the caller can abort the batch safely.
 */
export async function runImport(
  batch: ImportBatch,
  files: readonly ImportFile[],
  options: RunImportOptions,
): Promise<ImportCheckpoint> {
  options.signal?.throwIfAborted();
  const worker = startWorkerThread(WORKER_URL);
  const run = new ImportPipeline(worker, batch, files, options);
  try {
    return await run.finished();
  } finally {
    await worker.terminate();
  }
}

/** Trajectories of an import its dataset already held byte for byte, taken out of it. */
export interface SkippedRepeats {
  trajectories: number;
  transitions: number;
}

const NONE_SKIPPED: SkippedRepeats = { trajectories: 0, transitions: 0 };

/**
 * The report an import's final state stands for: what it stored. Trajectories the dataset already
 * held byte for byte (`ImportBatch.dropRepeated`) are not stored again; `alreadyStored` counts them
 * (`alreadyStoredNote` says it).
 */
export function reportOf(
  dataset: string,
  checkpoint: ImportCheckpoint,
  skipped: SkippedRepeats = NONE_SKIPPED,
): ImportReport {
  const { report } = checkpoint;
  const warnings = [...report.warnings];
  if (report.unlistedWarnings > 0) {
    const count = report.unlistedWarnings;
    warnings.push({
      file: '*',
      reason: `${count} more ${count === 1 ? 'warning' : 'warnings'} not listed`,
    });
  }
  const errors = [...report.errors];
  if (report.unlistedErrors > 0) {
    errors.push({
      file: '*',
      line: null,
      byteOffset: null,
      reason: `${report.unlistedErrors} more errors not listed`,
    });
  }
  const [only] = report.formats;
  return {
    dataset,
    format: report.formats.length > 1 ? 'mixed' : (only ?? null),
    trajectories: report.trajectories - skipped.trajectories,
    transitions: report.transitions - skipped.transitions,
    quarantined: report.quarantined,
    errors,
    ...(warnings.length === 0 ? {} : { warnings }),
    ...(skipped.trajectories === 0 ? {} : { alreadyStored: skipped.trajectories }),
    ...(report.unknownFormatFiles === 0 ? {} : { unknownFormatFiles: report.unknownFormatFiles }),
    ...(report.stoppedFiles === 0 ? {} : { stoppedFiles: report.stoppedFiles }),
    ...(report.wrongFormatFiles === 0 ? {} : { wrongFormatFiles: report.wrongFormatFiles }),
  };
}

/**
 * Ends a batch whose files were all read: takes out what the dataset already held, then commits
 * what is left, or discards the batch when nothing is. Returns the report of what was stored.
 * A job's batch commits only while the job runs, marking it done with the report
 * (`ImportBatch.commit`: rejects with `ImportJobNotRunning` when a cancel came first).
 */
export async function settleImport(
  batch: ImportBatch,
  dataset: string,
  final: ImportCheckpoint,
  jobId?: string,
): Promise<ImportReport> {
  const skipped = final.report.trajectories > 0 ? await batch.dropRepeated() : NONE_SKIPPED;
  const report = reportOf(dataset, final, skipped);
  if (report.trajectories === 0) {
    await batch.abort();
    return report;
  }
  const upkeep = await batch.commit(jobId === undefined ? undefined : { id: jobId, report });
  return upkeep === null
    ? report
    : { ...report, warnings: [...(report.warnings ?? []), { file: '*', reason: upkeep }] };
}

/**
 * Streams every file into one import batch of `dataset`. The batch commits only when at least one
 * trajectory was read; otherwise nothing is written. Bad records are quarantined and listed; a
 * file that cannot be read at all is one error and the other files still import. Rejects (after
 * discarding the batch) when `signal` aborts or the store fails.
 */
export async function importFiles(
  store: Store,
  files: ImportFile[],
  options: ImportOptions,
): Promise<ImportReport> {
  options.signal?.throwIfAborted();
  const batch = await store.beginImport(options.dataset);
  try {
    return await settleImport(batch, options.dataset, await runImport(batch, files, options));
  } catch (error) {
    await batch.abort().catch(() => {
      // The original failure matters more; an uncommitted batch is discarded on next open anyway.
    });
    throw error;
  }
}

class ImportPipeline {
  private chunkBytesInFlight = 0;
  private readonly chunkSizes: number[] = [];
  private readonly waiting: { group: ImportGroup; checkpoint: ImportCheckpoint }[] = [];
  private readonly writes = new Set<Promise<void>>();
  private failure: { error: unknown } | null = null;
  private final: ImportCheckpoint | null = null;
  private trajectories = 0;
  /** Resolves whoever waits for a change (a chunk taken, a group stored, the end, a failure). */
  private wake: (() => void) | null = null;

  constructor(
    private readonly worker: Worker,
    private readonly batch: ImportBatch,
    private readonly files: readonly ImportFile[],
    private readonly options: RunImportOptions,
  ) {
    worker.on('message', (raw: unknown) => this.receive(raw));
    worker.on('error', (error) => this.fail(error));
    worker.on('exit', (code) => {
      if (this.final === null) this.fail(new Error(`the import's reading thread exited (${code})`));
    });
    this.trajectories = options.resume?.report.trajectories ?? 0;
    options.signal?.addEventListener('abort', () => this.changed(), { once: true });
  }

  private changed(): void {
    const wake = this.wake;
    this.wake = null;
    wake?.();
  }

  private nextChange(): Promise<void> {
    return new Promise((resolve) => {
      this.wake = resolve;
    });
  }

  private fail(error: unknown): void {
    this.failure ??= { error };
    this.changed();
  }

  private throwIfStopped(): void {
    this.options.signal?.throwIfAborted();
    if (this.failure !== null) throw this.failure.error;
  }

  private receive(raw: unknown): void {
    const parsed = WorkerMessage.safeParse(raw);
    if (!parsed.success) {
      this.fail(new Error(`the import's reading thread sent ${parsed.error.message}`));
      return;
    }
    const message = parsed.data;
    switch (message.kind) {
      case 'consumed':
        this.chunkBytesInFlight -= this.chunkSizes.shift() ?? 0;
        break;
      case 'group': {
        const { jobId } = this.options;
        if (message.encoded === null && message.quarantined.length === 0 && jobId === undefined) {
          break;
        }
        const { checkpoint } = message;
        this.waiting.push({
          checkpoint,
          group: {
            encoded: message.encoded,
            quarantined: message.quarantined,
            ...(jobId === undefined
              ? {}
              : {
                  checkpoint: {
                    jobId,
                    state: checkpoint,
                    doneBytes: checkpoint.bytesBefore + checkpoint.bytesInFile,
                    trajectories: checkpoint.report.trajectories,
                  },
                }),
          },
        });
        this.trajectories = checkpoint.report.trajectories;
        this.startWrites();
        break;
      }
      case 'done':
        this.final = message.checkpoint;
        break;
      case 'failed':
        this.fail(new Error(message.message));
        break;
    }
    this.changed();
  }

  /** Hands waiting groups to the store, as many at once as it writes in parallel. */
  private startWrites(): void {
    const limit = Math.max(1, this.batch.parallelWrites ?? 1);
    while (this.writes.size < limit && this.failure === null) {
      const next = this.waiting.shift();
      if (next === undefined) return;
      const write: Promise<void> = this.batch.addGroup(next.group).then(
        () => {
          this.writes.delete(write);
          this.options.onStored?.(next.checkpoint);
          this.startWrites();
          this.changed();
        },
        (error: unknown) => {
          this.writes.delete(write);
          this.fail(error);
        },
      );
      this.writes.add(write);
    }
  }

  private post(message: ImporterMessage, transfer: ArrayBuffer[] = []): void {
    this.worker.postMessage(message, transfer);
  }

  async finished(): Promise<ImportCheckpoint> {
    try {
      const resume = this.options.resume ?? null;
      this.post({
        kind: 'start',
        files: this.files.map((file) => ({ name: file.name, size: file.size ?? null })),
        format: this.options.format ?? null,
        context: { datasetId: this.batch.datasetId, batchId: this.batch.batchId },
        resume,
      });
      for (let index = resume?.file ?? 0; index < this.files.length; index++) {
        await this.sendFile(index);
      }
      while (this.final === null || this.waiting.length > 0 || this.writes.size > 0) {
        this.throwIfStopped();
        await this.nextChange();
      }
      this.throwIfStopped();
      return this.final;
    } catch (error) {
      // Writes still running would race the caller's abort; let them end first.
      await Promise.allSettled(this.writes);
      throw error;
    }
  }

  private async sendFile(index: number): Promise<void> {
    const file = this.files[index];
    if (file === undefined) return;
    const { signal, onProgress } = this.options;
    let bytesRead = 0;
    try {
      for await (const chunk of file.chunks) {
        this.throwIfStopped();
        while (
          this.chunkBytesInFlight >= MAX_CHUNK_BYTES_IN_FLIGHT ||
          this.waiting.length >= MAX_GROUPS_WAITING
        ) {
          await this.nextChange();
          this.throwIfStopped();
        }
        // A copy the thread can own: chunks of a file stream share one pooled buffer.
        const size = chunk.byteLength;
        const bytes = new Uint8Array(size);
        bytes.set(chunk);
        this.chunkBytesInFlight += size;
        this.chunkSizes.push(size);
        // Moved, not copied: `bytes` is empty here afterwards.
        this.post({ kind: 'chunk', file: index, bytes }, [bytes.buffer]);
        bytesRead += size;
        onProgress?.({
          file: file.name,
          bytesRead,
          totalBytes: file.size,
          trajectories: this.trajectories,
        });
      }
      this.post({ kind: 'file-end', file: index });
    } catch (error) {
      if (signal?.aborted === true || this.failure !== null) throw error;
      // An I/O error ends this file only (the reading thread lists it), like a reader failure.
      this.post({
        kind: 'file-error',
        file: index,
        message: error instanceof Error ? error.message : String(error),
      });
    }
  }
}
