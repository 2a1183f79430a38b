import type { LexemeTable } from './search-vector';

/**
 * PostgreSQL's binary COPY format, written into one growing buffer: what import sends both
 * databases (`COPY … FROM '/dev/blob'` in PGlite, `COPY … FROM STDIN` on a server). In binary form
 * the database copies bytes and tsvectors instead of parsing JSON and text per row, which is where
 * PGlite spent its time with `json_to_recordset`.
 *
 * Layout: an 11-byte signature, flags and header-extension length (both 0), then per row the
 * field count (16 bits) and per field its length (32 bits, -1 for NULL) and bytes; -1 (16 bits)
 * ends the data. Integers are big-endian.
 */
const SIGNATURE = [0x50, 0x47, 0x43, 0x4f, 0x50, 0x59, 0x0a, 0xff, 0x0d, 0x0a, 0x00];

/** Type OIDs the array header names (pg_type.dat); fixed since PostgreSQL 8.3. */
const TSVECTOR_OID = 3614;

const encoder = new TextEncoder();

// Text PostgreSQL cannot store (json-payload.ts says why they are replaced rather than refused).
const NUL = /\0/g;

export class CopyWriter {
  private buffer: Uint8Array;
  private view: DataView;
  private at = 0;
  /** Rows written so far. */
  rows = 0;

  constructor(initialBytes = 1 << 16) {
    this.buffer = new Uint8Array(Math.max(initialBytes, 64));
    this.view = new DataView(this.buffer.buffer);
    for (const byte of SIGNATURE) this.buffer[this.at++] = byte;
    this.int32(0);
    this.int32(0);
  }

  /** Bytes written so far. */
  get size(): number {
    return this.at;
  }

  private ensure(bytes: number): void {
    if (this.at + bytes <= this.buffer.length) return;
    const grown = new Uint8Array(Math.max(this.buffer.length * 2, this.at + bytes));
    grown.set(this.buffer.subarray(0, this.at));
    this.buffer = grown;
    this.view = new DataView(grown.buffer);
  }

  private int16(value: number): void {
    this.ensure(2);
    this.view.setInt16(this.at, value);
    this.at += 2;
  }

  private int32(value: number): void {
    this.ensure(4);
    this.view.setInt32(this.at, value);
    this.at += 4;
  }

  row(fields: number): void {
    this.int16(fields);
    this.rows++;
  }

  null(): void {
    this.int32(-1);
  }

  /** A `bigint` (ids are decimal strings outside SQL); returns its offset, for `patchBigint`. */
  bigint(value: string | number): number {
    this.int32(8);
    this.ensure(8);
    const offset = this.at;
    this.view.setBigInt64(offset, BigInt(value));
    this.at += 8;
    return offset;
  }

  integer(value: number): void {
    this.int32(4);
    this.int32(value);
  }

  nullableInteger(value: number | null): void {
    if (value === null) this.null();
    else this.integer(value);
  }

  float8(value: number | null): void {
    if (value === null) return this.null();
    this.int32(8);
    this.ensure(8);
    this.view.setFloat64(this.at, value);
    this.at += 8;
  }

  boolean(value: boolean | null): void {
    if (value === null) return this.null();
    this.int32(1);
    this.ensure(1);
    this.buffer[this.at++] = value ? 1 : 0;
  }

  /** `text` (and `json`, whose binary form is its text); NUL becomes U+2400 as everywhere else. */
  text(value: string | null): void {
    if (value === null) return this.null();
    const safe = value.includes('\0') ? value.replace(NUL, '\u2400') : value;
    // UTF-8 takes at most 3 bytes per UTF-16 unit; lone surrogates become U+FFFD.
    this.ensure(4 + safe.length * 3);
    const lengthAt = this.at;
    this.at += 4;
    const { written } = encoder.encodeInto(safe, this.buffer.subarray(this.at));
    this.view.setInt32(lengthAt, written);
    this.at += written;
  }

  /** `jsonb`: a version byte (1), then the JSON text (from `toJsonPayload`). */
  jsonb(json: string): void {
    this.ensure(5 + json.length * 3);
    const lengthAt = this.at;
    this.at += 4;
    this.buffer[this.at++] = 1;
    const { written } = encoder.encodeInto(json, this.buffer.subarray(this.at));
    this.view.setInt32(lengthAt, written + 1);
    this.at += written;
  }

  bytes(value: Uint8Array | null): void {
    if (value === null) return this.null();
    this.int32(value.length);
    this.ensure(value.length);
    this.buffer.set(value, this.at);
    this.at += value.length;
  }

  /** A `tsvector` (with positions or stripped, as the table keeps them). */
  tsvector(table: LexemeTable): void {
    const size = table.binarySize();
    this.int32(size);
    this.ensure(size);
    this.at = table.writeBinary(this.buffer, this.at);
  }

  /** A `tsvector` already in binary form (`LexemeTable.writeBinary`). */
  tsvectorBytes(bytes: Uint8Array): void {
    this.bytes(bytes);
  }

  /** A one-dimensional `tsvector[]` of vectors already in binary form. */
  tsvectorArray(vectors: readonly Uint8Array[]): void {
    let size = 20;
    for (const vector of vectors) size += 4 + vector.length;
    this.int32(size);
    this.int32(1); // dimensions
    this.int32(0); // no NULL elements
    this.int32(TSVECTOR_OID);
    this.int32(vectors.length);
    this.int32(1); // lower bound
    for (const vector of vectors) this.bytes(vector);
  }

  /** Overwrites the `bigint` written at `offset` (from `bigint` or within `raw` bytes). */
  patchBigint(offset: number, value: bigint): void {
    this.view.setBigInt64(offset, value);
  }

  /** Bytes of rows written elsewhere (`bytesSince`), appended as they are. */
  raw(bytes: Uint8Array): number {
    this.ensure(bytes.length);
    const offset = this.at;
    this.buffer.set(bytes, offset);
    this.at += bytes.length;
    return offset;
  }

  /** A copy of the bytes written since `offset` (a `size` read earlier): rows without a header. */
  bytesSince(offset: number): Uint8Array {
    return this.buffer.slice(offset, this.at);
  }

  /** The rows with the end marker. The writer is done afterwards. */
  finish(): Uint8Array {
    this.int16(-1);
    return this.buffer.subarray(0, this.at);
  }
}

/** Overwrites the `bigint` at `offset` (from `CopyWriter.bigint`) of finished COPY data. */
export function patchBigint(data: Uint8Array, offset: number, value: bigint): void {
  new DataView(data.buffer, data.byteOffset, data.byteLength).setBigInt64(offset, value);
}
