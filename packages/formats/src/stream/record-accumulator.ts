import { GrowableBytes } from './growable-bytes';

/** How many bytes of a bad record are kept to show the user. */
export const EXCERPT_BYTES = 2048;

/**
 * Collects the bytes of the record being read. A record inside one chunk is a view of that chunk
 * (no copy); one that spans chunks is copied piece by piece. Past `maxBytes` it stops buffering and
 * keeps only the first bytes for the excerpt, so an oversize record never sits in memory whole.
 */
export class RecordAccumulator {
  private readonly parts = new GrowableBytes();
  /** Bytes of the record seen in earlier chunks. */
  private carried = 0;
  private oversizeExcerpt: Uint8Array | null = null;

  constructor(readonly maxBytes: number) {}

  reset(): void {
    this.parts.clear();
    this.carried = 0;
    this.oversizeExcerpt = null;
  }

  /** The chunk ends inside the record: keep `chunk[from, to)` for later. */
  carry(chunk: Uint8Array, from: number, to: number): void {
    this.add(chunk, from, to, true);
  }

  /**
   * The record ends at `to` in this chunk. Returns its bytes (valid until the next record is
   * completed), or null when it was larger than `maxBytes`: then `size` and `excerpt` describe it.
   */
  complete(chunk: Uint8Array, from: number, to: number): Uint8Array | null {
    const spansChunks = this.parts.length > 0;
    this.add(chunk, from, to, spansChunks);
    if (this.oversizeExcerpt !== null) return null;
    return spansChunks ? this.parts.take() : chunk.subarray(from, to);
  }

  /** Bytes of the record so far (after `complete`: its whole size). */
  get size(): number {
    return this.carried;
  }

  /** The record's first bytes: for an oversize record, or one the file ends inside. */
  get excerpt(): Uint8Array {
    return this.oversizeExcerpt ?? this.parts.head(EXCERPT_BYTES);
  }

  private add(chunk: Uint8Array, from: number, to: number, buffer: boolean): void {
    this.carried += to - from;
    if (this.oversizeExcerpt !== null) {
      // Whatever the chunking, the excerpt is the record's first EXCERPT_BYTES bytes.
      this.oversizeExcerpt = joinHead(this.oversizeExcerpt, chunk, from, to);
    } else if (this.carried > this.maxBytes) {
      this.oversizeExcerpt = joinHead(this.parts.head(EXCERPT_BYTES), chunk, from, to);
      this.parts.clear();
    } else if (buffer) {
      this.parts.append(chunk, from, to);
    }
  }
}

function joinHead(start: Uint8Array, chunk: Uint8Array, from: number, to: number): Uint8Array {
  const wanted = Math.min(EXCERPT_BYTES - start.length, to - from);
  if (wanted <= 0) return start;
  const joined = new Uint8Array(start.length + wanted);
  joined.set(start);
  joined.set(chunk.subarray(from, from + wanted), start.length);
  return joined;
}
