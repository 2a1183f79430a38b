import { CR, LF, SPACE, TAB } from './byte-codes';
import { nestsDeeperThan } from './json-depth';
import { EXCERPT_BYTES, RecordAccumulator } from './record-accumulator';
import {
  tooDeepReason,
  tooLargeReason,
  type RecordLimits,
  type RecordSplitter,
  type SplitItem,
} from './split-item';

/**
 * One record per line. Lines holding only whitespace are not records. A CR before the LF is
 * dropped. A raw LF cannot occur inside a valid JSON string, so `indexOf(LF)` finds every boundary.
 */
export class JsonlSplitter implements RecordSplitter {
  private readonly record: RecordAccumulator;
  private chunkOffset: number;
  private line = 1;
  private lineOffset: number;

  constructor(
    private readonly limits: RecordLimits,
    startOffset = 0,
  ) {
    this.record = new RecordAccumulator(limits.maxRecordBytes);
    this.chunkOffset = startOffset;
    this.lineOffset = startOffset;
  }

  push(chunk: Uint8Array): SplitItem[] {
    const items: SplitItem[] = [];
    let from = 0;
    for (;;) {
      const newline = chunk.indexOf(LF, from);
      if (newline < 0) {
        this.record.carry(chunk, from, chunk.length);
        break;
      }
      this.completeLine(this.record.complete(chunk, from, newline), false, items);
      from = newline + 1;
      this.line++;
      this.lineOffset = this.chunkOffset + from;
      this.record.reset();
    }
    this.chunkOffset += chunk.length;
    return items;
  }

  end(): SplitItem[] {
    const items: SplitItem[] = [];
    this.completeLine(this.record.complete(new Uint8Array(0), 0, 0), true, items);
    this.record.reset();
    return items;
  }

  private completeLine(bytes: Uint8Array | null, atEndOfFile: boolean, items: SplitItem[]): void {
    const place = { line: this.line, byteOffset: this.lineOffset };
    if (bytes === null) {
      const reason = tooLargeReason(this.record.size, this.limits.maxRecordBytes);
      items.push({ kind: 'bad-record', ...place, reason, excerpt: this.record.excerpt });
      return;
    }
    let end = bytes.length;
    if (bytes[end - 1] === CR) end--;
    if (isBlank(bytes, end)) return;
    const text = end === bytes.length ? bytes : bytes.subarray(0, end);
    if (nestsDeeperThan(text, this.limits.maxDepth)) {
      const reason = tooDeepReason(this.limits.maxDepth);
      items.push({
        kind: 'bad-record',
        ...place,
        reason,
        excerpt: text.subarray(0, EXCERPT_BYTES),
      });
      return;
    }
    items.push({ kind: 'record', ...place, bytes: text, key: null, atEndOfFile });
  }
}

function isBlank(bytes: Uint8Array, end: number): boolean {
  for (let index = 0; index < end; index++) {
    const byte = bytes[index];
    if (byte !== SPACE && byte !== TAB && byte !== CR) return false;
  }
  return true;
}
