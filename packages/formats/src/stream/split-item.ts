import { formatCount } from '@terrarium/schema';

/** Limits that keep one hostile record from exhausting memory or the stack. */
export interface RecordLimits {
  /** Largest record kept; larger ones are quarantined without being buffered whole. */
  maxRecordBytes: number;
  /** Deepest nesting of arrays and objects inside one record. */
  maxDepth: number;
}

export const DEFAULT_MAX_RECORD_BYTES = 32 * 1024 * 1024;
export const DEFAULT_MAX_DEPTH = 1000;

interface Place {
  /** 1-based line where the item starts. */
  line: number;
  /** Byte offset in the file where the item starts. */
  byteOffset: number;
}

/**
 * What a splitter finds in the bytes. `bytes` views are valid only until the splitter is fed again.
 * - `record`: one record's JSON text (`key` for `json-object-values`).
 * - `header`: a top-level member of an `object-stream` file other than the streamed array.
 * - `bad-record` / `bad-header`: one record (or member) that cannot be used; the rest goes on.
 * - `bad-structure`: the file's own structure is broken (truncated, stray bytes); no record is lost
 *   at this place, or the rest of the file is skipped when `reason` says so.
 */
export type SplitItem =
  | (Place & {
      kind: 'record';
      bytes: Uint8Array;
      key: string | null;
      /** The record runs up to the end of the file (a truncated file shows up here). */
      atEndOfFile: boolean;
    })
  | (Place & { kind: 'header'; name: string; bytes: Uint8Array })
  | (Place & { kind: 'bad-record'; reason: string; excerpt: Uint8Array })
  | (Place & { kind: 'bad-header'; name: string; reason: string; excerpt: Uint8Array })
  | (Place & { kind: 'bad-structure'; reason: string; excerpt: Uint8Array })
  /** The file does not have the layout's top-level shape at all. */
  | (Place & { kind: 'unreadable'; reason: string });

/** Turns a file's bytes, fed chunk by chunk, into records. */
export interface RecordSplitter {
  /** Items completed by this chunk. Consume them before the next call. */
  push(chunk: Uint8Array): SplitItem[];
  /** Items completed by the end of the file (a last line, a truncated record). */
  end(): SplitItem[];
}

// In the user's words: the Import page and the CLI show these, and `maxRecordBytes` is ours.
export function tooLargeReason(size: number, limit: number): string {
  return `record too large: ${formatCount(size)} bytes, more than the ${formatCount(limit)} bytes one record may hold`;
}

export function tooDeepReason(limit: number): string {
  return `JSON nested deeper than ${limit} levels, the most one record may have`;
}
