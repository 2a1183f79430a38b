/**
 * Bytes of one record that spans chunks. `take` hands the buffer over to the caller and starts a
 * fresh one, so a record already handed out is never overwritten by the next record's bytes.
 */
export class GrowableBytes {
  private buffer: Uint8Array | null = null;
  private used = 0;

  get length(): number {
    return this.used;
  }

  append(source: Uint8Array, from: number, to: number): void {
    const added = to - from;
    if (added <= 0) return;
    const needed = this.used + added;
    if (this.buffer === null || this.buffer.length < needed) {
      const grown = new Uint8Array(Math.max(needed, this.used * 2, 4096));
      if (this.buffer !== null) grown.set(this.buffer.subarray(0, this.used));
      this.buffer = grown;
    }
    this.buffer.set(source.subarray(from, to), this.used);
    this.used = needed;
  }

  /** The first `count` bytes (or fewer), copied. */
  head(count: number): Uint8Array {
    if (this.buffer === null) return new Uint8Array(0);
    return this.buffer.slice(0, Math.min(count, this.used));
  }

  take(): Uint8Array {
    const taken = this.buffer === null ? new Uint8Array(0) : this.buffer.subarray(0, this.used);
    this.clear();
    return taken;
  }

  clear(): void {
    this.buffer = null;
    this.used = 0;
  }
}
