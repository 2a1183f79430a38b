import type { SourceFormat, Trajectory } from '@terrarium/schema';

/**
 * How a format lays its records out in a file. The streaming reader (src/stream) turns a file into
 * records according to this; adapters never see bytes.
 * - `jsonl`: one record per line.
 * - `json-document`: the whole file is one record (a SWE-agent `.traj`, an ATIF file).
 * - `json-array`: a top-level array, one record per element, parsed incrementally.
 * - `json-object-values`: a top-level object whose values are the records (InterCode: keyed "0", "1"…);
 *   the key is passed in `RecordContext.key`.
 * - `object-stream`: a top-level object; the array at `key` is streamed element by element, every other
 *   top-level member is parsed whole and passed in `RecordContext.header` (tau2: info and tasks).
 */
export type RecordLayout =
  | { kind: 'jsonl' }
  | { kind: 'json-document' }
  | { kind: 'json-array' }
  | { kind: 'json-object-values' }
  | { kind: 'object-stream'; key: string };

export interface RecordContext {
  /** The file name as the user gave it (used in errors and in `Trajectory.source.file`). */
  file: string;
  /** 1-based line where the record starts. */
  line: number;
  /** Byte offset where the record starts. */
  byteOffset: number;
  /** Position of the record among the file's records (0-based). */
  ordinal: number;
  /** For `json-object-values`: the record's key. */
  key: string | null;
  /** For `object-stream`: the other top-level members, parsed. */
  header: Record<string, unknown>;
  /** The record's source text (lazily decoded), for digits `JSON.parse` rounds (ids above 2^53). */
  text?: () => string;
  /**
   * Where `convert` says what it kept although it does not read as the format says (see
   * `RecordNote`). The reader turns each into a warning naming the file and line, once the record
   * converted; a record quarantined says nothing more.
   */
  readonly notes: RecordNote[];
}

/**
 * A value a record holds that was kept as it is although it does not read as its format says (tool
 * call arguments that are not JSON): unlike a `RecordError` the record imports, but silently keeping
 * it would hide that the file is damaged there (walk: a truncated `arguments` string imported without
 * a word). `field` is a path like `RecordError.field`.
 */
export interface RecordNote {
  field: string;
  problem: string;
}

/** What the reader knows about a file before choosing a format: its name and first bytes as text. */
export interface FormatProbe {
  fileName: string;
  /** Up to the first 64 KiB, decoded as UTF-8 (may end mid-record). */
  head: string;
}

export interface FormatAdapter {
  format: SourceFormat;
  layout: RecordLayout;
  /** True when this file looks like this format. Cheap: text checks on the head only. */
  sniff(probe: FormatProbe): boolean;
  /**
   * Convert one parsed record to trajectories (usually one). Throws `RecordError` naming the field
   * when the record does not have this format's shape; the reader quarantines that record and goes on.
   */
  convert(record: unknown, context: RecordContext): Trajectory[];
}

/** A record that does not fit its format. `field` is a path like `traj[3].tool_calls[0].function.name`. */
export class RecordError extends Error {
  constructor(
    readonly field: string,
    readonly problem: string,
  ) {
    super(field ? `${field}: ${problem}` : problem);
    this.name = 'RecordError';
  }
}
