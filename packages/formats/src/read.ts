import type { ImportError, ImportWarning, SourceFormat, Trajectory } from '@terrarium/schema';

export interface ReadOptions {
  fileName: string;
  /** Skip detection and read as this format. */
  format?: SourceFormat;
  /** Largest record read (default 32 MiB); a larger one is quarantined without being buffered. */
  maxRecordBytes?: number;
  /** Deepest nesting of arrays/objects in a record (default 1,000); a deeper one is quarantined. */
  maxDepth?: number;
  /**
   * Records and problems that start at or before this byte offset are skipped without being
   * parsed: a resumed import stored them already. The file is still split from its start (and an
   * object-stream file's header members read), so what follows is read exactly as before.
   */
  resumeAfter?: number;
}

export type ImportEvent =
  /** The detected (or forced) format, emitted once before any record. */
  | { type: 'format'; format: SourceFormat }
  /**
   * `byteOffset`: where the record it came from starts (several trajectories may share one).
   * `sourceBytes`: the record's JSON text as read, when `trajectory.source.record` is that record
   * whole (a store keeps those bytes instead of serializing the record again).
   */
  | { type: 'trajectory'; trajectory: Trajectory; byteOffset: number; sourceBytes?: Uint8Array }
  /**
   * A record that imported with something kept as it was that its format does not allow (tool-call
   * arguments that are not JSON): after that record's trajectories, one per thing noted.
   * `byteOffset`: where the record starts.
   */
  | { type: 'warning'; warning: ImportWarning; byteOffset: number }
  /** A bad record: skipped, the rest of the file goes on. `excerpt` holds its first bytes. */
  | { type: 'quarantine'; error: ImportError; excerpt: string }
  /**
   * The file cannot be read at all (unknown format, binary, not UTF-8 from the start…), or not
   * past a point. `notFormat`: the file is not of the format it was forced to be read as.
   */
  | { type: 'fatal'; error: ImportError; notFormat?: SourceFormat };

// Implemented in src/stream (the streaming reader); declared here so callers can code against it.
export type ReadTrajectories = (
  chunks: AsyncIterable<Uint8Array>,
  options: ReadOptions,
) => AsyncGenerator<ImportEvent>;
