import { parentPort } from 'node:worker_threads';
import { GroupEncoder, type EncodedGroup, type EncodeItem } from '@terrarium/db/encode';
import { readTrajectories, TransitionTally, type ImportEvent } from '@terrarium/formats';
import {
  countTransitions,
  type ImportError,
  type ImportWarning,
  type SourceFormat,
} from '@terrarium/schema';
import {
  ImporterMessage,
  MAX_LISTED_ERRORS,
  MAX_LISTED_WARNINGS,
  type ImportCheckpoint,
  type WorkerMessage,
} from './import-protocol';

/**
 * The reading thread of an import: reads the files' chunks (sent by the importing thread),
 * splits, parses, validates and converts them, and encodes each group of trajectories as the
 * database's COPY rows, search vectors included. The importing thread only writes what arrives,
 * so on two cores parsing and the database run side by side.
 */

// Groups: big enough to amortize a transaction, small enough that memory stays flat (measured on
// 64 MB of tau-bench into PostgreSQL: 8 MB groups peaked at 531 MB RSS, 2 MB at 422 MB).
const FLUSH_TRAJECTORIES = 500;
const FLUSH_BYTES = 2 * 1024 * 1024;
const FLUSH_QUARANTINED = 500;

const port = parentPort;
if (port === null) throw new Error('import-worker.ts runs as a worker thread');

function post(message: WorkerMessage, transfer: ArrayBuffer[] = []): void {
  port?.postMessage(message, transfer);
}

type Incoming = Exclude<ImporterMessage, { kind: 'start' }>;

/** Messages from the importing thread, in order, for the reader to pull. */
class Inbox {
  private readonly items: Incoming[] = [];
  private waiting: ((message: Incoming) => void) | null = null;

  push(message: Incoming): void {
    const waiting = this.waiting;
    if (waiting !== null) {
      this.waiting = null;
      waiting(message);
    } else this.items.push(message);
  }

  next(): Promise<Incoming> {
    const item = this.items.shift();
    if (item !== undefined) return Promise.resolve(item);
    return new Promise((resolve) => {
      this.waiting = resolve;
    });
  }
}

const inbox = new Inbox();
let started = false;

port.on('message', (raw: unknown) => {
  const message = ImporterMessage.parse(raw);
  if (message.kind === 'start') {
    if (started) throw new Error('an import worker runs one import');
    started = true;
    new WorkerImport(message).run().then(
      (checkpoint) => post({ kind: 'done', checkpoint }),
      (error: unknown) =>
        post({ kind: 'failed', message: error instanceof Error ? error.message : String(error) }),
    );
  } else inbox.push(message);
});

class WorkerImport {
  private readonly encoder = new GroupEncoder();
  private state: ImportCheckpoint;
  private tally = new TransitionTally();
  private fileFormat: SourceFormat | null = null;
  private pending: EncodeItem[] = [];
  private pendingQuarantined: { error: ImportError; excerpt: string }[] = [];
  private pendingBytes = 0;
  /** Where the last record handed to a group starts. */
  private lastRecord = -1;

  /** Whether the current file's reading stopped on an error once its format was known. */
  private stopped = false;
  /** Whether the current file is in no known format (the reader gave up before naming one). */
  private unknownFormat = false;
  /** Whether the current file turned out not to be the forced format. */
  private wrongFormat = false;
  /** Whether the current file's format was new to the report (taken back if it is the wrong one). */
  private formatAdded = false;

  constructor(private readonly start: Extract<ImporterMessage, { kind: 'start' }>) {
    this.state = start.resume ?? {
      file: 0,
      after: -1,
      bytesBefore: 0,
      bytesInFile: 0,
      report: {
        trajectories: 0,
        transitions: 0,
        quarantined: 0,
        errors: [],
        unlistedErrors: 0,
        stoppedFiles: 0,
        unknownFormatFiles: 0,
        wrongFormatFiles: 0,
        warnings: [],
        unlistedWarnings: 0,
        formats: [],
      },
      fileTally: null,
    };
    if (this.state.fileTally !== null) {
      this.tally = TransitionTally.from(this.state.fileTally.counts);
      this.fileFormat = this.state.fileTally.format;
    }
  }

  async run(): Promise<ImportCheckpoint> {
    const { files } = this.start;
    for (let file = this.state.file; file < files.length; file++) {
      await this.readFile(file);
    }
    return this.state;
  }

  private async readFile(file: number): Promise<void> {
    const name = this.start.files[file]?.name ?? `file ${file}`;
    const resumeAfter = this.state.file === file ? this.state.after : -1;
    if (this.state.file !== file) {
      this.state = { ...this.state, file, after: -1, bytesInFile: 0, fileTally: null };
    }
    // Each file is judged on its own (its 0-transitions warning, its format). Only a file resumed
    // midway keeps what its checkpoint restored: the end of the file before already moved the
    // checkpoint to this one, so `state.file` alone does not tell a new file (a second file's
    // warning was lost to the first one's transitions).
    if (resumeAfter < 0) {
      this.tally = new TransitionTally();
      this.fileFormat = null;
    }
    this.state.bytesInFile = 0;
    this.lastRecord = resumeAfter;
    this.stopped = false;
    this.unknownFormat = false;
    this.wrongFormat = false;
    this.formatAdded = false;
    const events = readTrajectories(this.chunksOf(file), {
      fileName: name,
      ...(this.start.format === null ? {} : { format: this.start.format }),
      ...(resumeAfter >= 0 ? { resumeAfter } : {}),
    });
    try {
      for (;;) {
        let next: IteratorResult<ImportEvent>;
        try {
          next = await events.next();
        } catch (error) {
          // A reader failure ends this file only; what it already yielded stays, like quarantine.
          this.addError({
            file: name,
            line: null,
            byteOffset: this.state.bytesInFile,
            reason: `reading stopped: ${error instanceof Error ? error.message : String(error)}`,
          });
          this.stopped = true;
          break;
        }
        if (next.done === true) break;
        this.accept(next.value, file);
      }
    } finally {
      await events.return(undefined);
    }
    if (this.wrongFormat) this.state.report.wrongFormatFiles++;
    else if (this.stopped) this.state.report.stoppedFiles++;
    else if (this.unknownFormat) this.state.report.unknownFormatFiles++;
    // Drain what the importing thread sends for this file after the reader stopped early.
    await this.skipRestOf(file);
    const reason = this.tally.zeroTransitionReason(this.fileFormat);
    // Listed whatever the count of record warnings: one per file, and it says the file is useless.
    if (reason !== null) this.state.report.warnings.push({ file: name, reason });
    // The file is done: a resumed import starts with the next one.
    this.flush({
      file: file + 1,
      after: -1,
      bytesBefore: this.state.bytesBefore + this.state.bytesInFile,
      bytesInFile: 0,
      fileTally: null,
    });
  }

  private fileEnded = new Set<number>();

  private async *chunksOf(file: number): AsyncGenerator<Uint8Array> {
    for (;;) {
      const message = await inbox.next();
      if (message.file !== file)
        throw new Error(`got data of file ${message.file} in file ${file}`);
      if (message.kind === 'file-end') {
        this.fileEnded.add(file);
        return;
      }
      if (message.kind === 'file-error') {
        this.fileEnded.add(file);
        throw new Error(message.message);
      }
      post({ kind: 'consumed', file });
      this.state.bytesInFile += message.bytes.byteLength;
      this.pendingBytes += message.bytes.byteLength;
      yield message.bytes;
    }
  }

  private async skipRestOf(file: number): Promise<void> {
    while (!this.fileEnded.has(file)) {
      const message = await inbox.next();
      if (message.kind === 'chunk') {
        post({ kind: 'consumed', file });
        this.state.bytesInFile += message.bytes.byteLength;
      } else this.fileEnded.add(message.file);
    }
  }

  private accept(event: ImportEvent, file: number): void {
    switch (event.type) {
      case 'format':
        if (!this.state.report.formats.includes(event.format)) {
          this.state.report.formats.push(event.format);
          this.formatAdded = true;
        }
        this.fileFormat = event.format;
        return;
      case 'trajectory':
        this.cutBefore(event.byteOffset, file);
        this.state.report.trajectories++;
        this.state.report.transitions += countTransitions(event.trajectory);
        this.tally.add(event.trajectory);
        this.pending.push({
          trajectory: event.trajectory,
          ...(event.sourceBytes === undefined ? {} : { sourceBytes: event.sourceBytes }),
        });
        this.lastRecord = event.byteOffset;
        return;
      case 'warning':
        // After its record's trajectories (same offset: no cut), so it is stored with them.
        this.cutBefore(event.byteOffset, file);
        this.addRecordWarning(event.warning);
        this.lastRecord = event.byteOffset;
        return;
      case 'quarantine':
        this.cutBefore(event.error.byteOffset, file);
        this.state.report.quarantined++;
        this.addError(event.error);
        this.pendingQuarantined.push({ error: event.error, excerpt: event.excerpt });
        if (event.error.byteOffset !== null) this.lastRecord = event.error.byteOffset;
        return;
      case 'fatal':
        this.addError(event.error);
        if (event.notFormat !== undefined) {
          // Nothing of the file was read as the format: the report does not claim it.
          this.wrongFormat = true;
          const { report } = this.state;
          const refused = event.notFormat;
          if (this.formatAdded) report.formats = report.formats.filter((f) => f !== refused);
          return;
        }
        // The reader names the format before any record: a file it gave up on before that is in
        // no known format (binary, empty, none claimed it), not one that stopped midway.
        if (this.fileFormat === null) this.unknownFormat = true;
        else this.stopped = true;
        return;
    }
  }

  /**
   * Closes the group before a new record when it is full. Never inside a record (its trajectories
   * share its byte offset): a checkpoint says "everything up to this record is stored".
   */
  private cutBefore(recordOffset: number | null, file: number): void {
    if (recordOffset !== null && recordOffset === this.lastRecord) return;
    const full =
      this.pending.length >= FLUSH_TRAJECTORIES ||
      this.pendingQuarantined.length >= FLUSH_QUARANTINED ||
      this.pendingBytes >= FLUSH_BYTES;
    if (!full) return;
    this.flush({
      file,
      after: this.lastRecord,
      bytesBefore: this.state.bytesBefore,
      bytesInFile: this.state.bytesInFile,
      fileTally: { format: this.fileFormat, counts: this.tally.counts() },
    });
  }

  /** Cuts the group: encodes it and posts it to the importing thread, which writes it. */
  private flush(position: Omit<ImportCheckpoint, 'report'>): void {
    this.state = { ...position, report: this.state.report };
    // The report is copied now: later events change it.
    const checkpoint: ImportCheckpoint = {
      ...this.state,
      report: {
        ...this.state.report,
        errors: [...this.state.report.errors],
        warnings: [...this.state.report.warnings],
        formats: [...this.state.report.formats],
      },
    };
    const encoded =
      this.pending.length === 0 ? null : this.encoder.encode(this.pending, this.start.context);
    post(
      { kind: 'group', encoded, quarantined: this.pendingQuarantined, checkpoint },
      encoded === null ? [] : transferables(encoded),
    );
    this.pending = [];
    this.pendingQuarantined = [];
    this.pendingBytes = 0;
  }

  private addError(error: ImportError): void {
    if (this.state.report.errors.length < MAX_LISTED_ERRORS) this.state.report.errors.push(error);
    else this.state.report.unlistedErrors++;
  }

  /** A record's warning; those past MAX_LISTED_WARNINGS are counted, not listed. */
  private addRecordWarning(warning: ImportWarning): void {
    if (this.state.report.warnings.length < MAX_LISTED_WARNINGS) {
      this.state.report.warnings.push(warning);
    } else this.state.report.unlistedWarnings++;
  }
}

/** The group's large buffers, moved to the importing thread rather than copied. */
function transferables(group: EncodedGroup): ArrayBuffer[] {
  const buffers = new Set<ArrayBuffer>();
  for (const view of [
    group.trajectoryRows,
    group.pageRows,
    group.trajectoryIdAt,
    group.trajectoryOwners,
    group.pageIdAt,
    group.pageOwners,
  ]) {
    if (view.buffer instanceof ArrayBuffer) buffers.add(view.buffer);
  }
  return [...buffers];
}
