import type { RecordLayout } from '../adapter';
import {
  BACKSLASH,
  CLOSE_BRACE,
  CLOSE_BRACKET,
  COLON,
  COMMA,
  LF,
  OPEN_BRACE,
  OPEN_BRACKET,
  QUOTE,
  describeByte,
  isJsonWhitespace,
  trimmedEnd,
} from './byte-codes';
import { GrowableBytes } from './growable-bytes';
import { EXCERPT_BYTES, RecordAccumulator } from './record-accumulator';
import {
  tooDeepReason,
  tooLargeReason,
  type RecordLimits,
  type RecordSplitter,
  type SplitItem,
} from './split-item';

export type StructuredLayout = Exclude<RecordLayout, { kind: 'jsonl' }>;

// Where the scanner stands between records.
const TOP = 0;
/** In an array (the top-level one, or the streamed one): before an element or `]`. */
const ARRAY_VALUE = 1;
/** In the top-level object: before a member name or `}`. */
const OBJECT_KEY = 2;
const KEY = 3;
const KEY_COLON = 4;
const MEMBER_VALUE = 5;
/** After the streamed array closed: `,` or `}`. */
const AFTER_MEMBER = 6;
/** Inside a record or a header member. */
const CAPTURE = 7;
const AFTER_TOP = 8;
/** After a structural error: nothing more can be trusted, the rest is skipped. */
const DONE = 9;

/** Capture level of a whole document: no delimiter ends it before the end of the file. */
const NO_LEVEL = -0x40000000;

const keyDecoder = new TextDecoder('utf-8', { fatal: true });

/**
 * Splits a JSON file into records without holding it whole: a byte loop tracks only string state
 * and bracket depth, and cuts a record where a `,` or the parent's closing bracket appears at the
 * record's own level. The records' contents are left to `JSON.parse`, which validates them.
 *
 * Line numbers count LF bytes outside strings; a raw LF inside a string is invalid JSON, so only
 * lines after such a bad record can be off.
 *
 * For `object-stream`, members after the streamed array are still parsed and reported as headers,
 * but the records before them were already handed out: a record sees only the members that come
 * before the array in the file (tau2 writes `timestamp`, `info` and `tasks` first).
 */
export class JsonSplitter implements RecordSplitter {
  private readonly record: RecordAccumulator;
  private readonly keyBytes = new GrowableBytes();
  private state = TOP;
  private chunkOffset: number;
  private line = 1;
  /** Open arrays and objects, counted from the top of the file. */
  private depth = 0;
  private inString = false;
  /** The previous chunk ended, inside a string, with an escaping backslash. */
  private escapePending = false;

  /** For `object-stream`: the streamed array was found. */
  private streamFound = false;
  private key: string | null = null;
  private keyError: string | null = null;

  private captureIsHeader = false;
  private captureKey: string | null = null;
  private captureKeyError: string | null = null;
  private captureLevel = 0;
  private depthLimit = 0;
  private tooDeep = false;
  private captureLine = 1;
  private captureOffset = 0;
  /** Where the capture's bytes start in the current chunk (0 once it spans chunks). */
  private captureFrom = 0;

  constructor(
    private readonly layout: StructuredLayout,
    private readonly limits: RecordLimits,
    startOffset = 0,
  ) {
    this.record = new RecordAccumulator(limits.maxRecordBytes);
    this.chunkOffset = startOffset;
  }

  push(chunk: Uint8Array): SplitItem[] {
    const items: SplitItem[] = [];
    const length = chunk.length;
    let index = 0;
    while (index < length) {
      const state = this.state;
      if (state === CAPTURE) {
        const boundary = this.scanCapture(chunk, index);
        if (boundary < 0) {
          this.record.carry(chunk, this.captureFrom, length);
          break;
        }
        this.emitCapture(this.record.complete(chunk, this.captureFrom, boundary), false, items);
        index = this.afterCapture(chunk, boundary, items);
      } else if (state === KEY) {
        index = this.scanKey(chunk, index, items);
      } else if (state === DONE) {
        break;
      } else {
        const byte = chunk[index];
        if (isJsonWhitespace(byte)) {
          if (byte === LF) this.line++;
          index++;
        } else {
          index = this.step(chunk, index, items);
        }
      }
    }
    this.chunkOffset += length;
    this.captureFrom = 0;
    return items;
  }

  end(): SplitItem[] {
    const items: SplitItem[] = [];
    const here = { line: this.line, byteOffset: this.chunkOffset };
    switch (this.state) {
      case AFTER_TOP:
        if (this.layout.kind === 'object-stream' && !this.streamFound) {
          const reason = `no top-level "${this.layout.key}" array in the file`;
          items.push({ kind: 'unreadable', ...here, reason });
        }
        break;
      case DONE:
        break;
      case TOP:
        items.push({
          kind: 'bad-structure',
          ...here,
          reason: 'no JSON value in the file',
          excerpt: new Uint8Array(0),
        });
        break;
      case CAPTURE: {
        const isDocument = this.captureLevel === NO_LEVEL;
        const closed =
          !this.inString && (isDocument ? this.depth <= 0 : this.depth === this.captureLevel);
        if (closed) {
          this.emitCapture(this.record.complete(new Uint8Array(0), 0, 0), true, items);
          if (!isDocument) items.push(this.truncatedContainer());
        } else {
          this.pushBad(items, 'truncated: the file ends inside this record', this.record.excerpt);
        }
        break;
      }
      default:
        items.push(this.truncatedContainer());
    }
    this.record.reset();
    return items;
  }

  /** One token between records; returns the index after it. */
  private step(chunk: Uint8Array, index: number, items: SplitItem[]): number {
    const byte = chunk[index];
    switch (this.state) {
      case TOP:
        if (this.layout.kind === 'json-document') {
          this.beginCapture(index, NO_LEVEL, false);
          return index;
        }
        if (this.layout.kind === 'json-array') {
          if (byte !== OPEN_BRACKET) return this.failTop(chunk, index, 'a JSON array', items);
          this.depth = 1;
          this.state = ARRAY_VALUE;
          return index + 1;
        }
        if (byte !== OPEN_BRACE) return this.failTop(chunk, index, 'a JSON object', items);
        this.depth = 1;
        this.state = OBJECT_KEY;
        return index + 1;
      case ARRAY_VALUE:
        if (byte === CLOSE_BRACKET) return this.closeArray(index);
        this.beginCapture(index, this.depth, false);
        return index;
      case OBJECT_KEY:
        if (byte === CLOSE_BRACE) return this.closeTopObject(index);
        if (byte !== QUOTE) return this.fail(chunk, index, "expected a member name or '}'", items);
        this.state = KEY;
        return index + 1;
      case KEY_COLON:
        if (byte !== COLON)
          return this.fail(chunk, index, "expected ':' after a member name", items);
        this.state = MEMBER_VALUE;
        return index + 1;
      case MEMBER_VALUE:
        if (this.layout.kind === 'object-stream') {
          if (this.key === this.layout.key && this.keyError === null) {
            if (byte !== OPEN_BRACKET)
              return this.fail(
                chunk,
                index,
                `expected an array as the value of "${this.layout.key}"`,
                items,
              );
            this.depth = 2;
            this.streamFound = true;
            this.state = ARRAY_VALUE;
            return index + 1;
          }
          this.beginCapture(index, 1, true);
          return index;
        }
        this.beginCapture(index, 1, false);
        return index;
      case AFTER_MEMBER:
        if (byte === COMMA) {
          this.state = OBJECT_KEY;
          return index + 1;
        }
        if (byte === CLOSE_BRACE) return this.closeTopObject(index);
        return this.fail(chunk, index, "expected ',' or '}' after a member", items);
      default:
        return this.fail(
          chunk,
          index,
          'unexpected data after the end of the top-level value',
          items,
        );
    }
  }

  private beginCapture(index: number, level: number, isHeader: boolean): void {
    this.state = CAPTURE;
    this.captureIsHeader = isHeader;
    // Members of the top-level object carry their name; elements of an array do not.
    const isMember = level === 1 && this.layout.kind !== 'json-array';
    this.captureKey = isMember ? this.key : null;
    this.captureKeyError = isMember ? this.keyError : null;
    this.captureLevel = level;
    this.depthLimit = level === NO_LEVEL ? this.limits.maxDepth : level + this.limits.maxDepth;
    this.tooDeep = false;
    this.captureLine = this.line;
    this.captureOffset = this.chunkOffset + index;
    this.captureFrom = index;
    this.record.reset();
  }

  /**
   * The hot loop: runs over a record's bytes until a `,` or closing bracket at the record's level.
   * Returns that delimiter's index, or -1 when the chunk ends first (the state is kept).
   */
  private scanCapture(chunk: Uint8Array, from: number): number {
    let index = from;
    if (this.inString) {
      const close = this.stringEnd(chunk, from);
      if (close < 0) return -1;
      this.inString = false;
      index = close + 1;
    }
    const length = chunk.length;
    const level = this.captureLevel;
    const limit = this.depthLimit;
    let depth = this.depth;
    let line = this.line;
    let tooDeep = this.tooDeep;
    let boundary = -1;
    for (; index < length; index++) {
      const byte = chunk[index];
      if (byte === QUOTE) {
        const close = this.stringEnd(chunk, index + 1);
        if (close < 0) {
          this.inString = true;
          break;
        }
        index = close;
      } else if (byte === OPEN_BRACE || byte === OPEN_BRACKET) {
        if (++depth > limit) tooDeep = true;
      } else if (byte === CLOSE_BRACE || byte === CLOSE_BRACKET) {
        if (depth === level) {
          boundary = index;
          break;
        }
        depth--;
      } else if (byte === COMMA) {
        if (depth === level) {
          boundary = index;
          break;
        }
      } else if (byte === LF) {
        line++;
      }
    }
    this.depth = depth;
    this.line = line;
    this.tooDeep = tooDeep;
    return boundary;
  }

  /**
   * Index of the quote closing the string whose bytes (in this chunk) start at `from`, or -1 when
   * the chunk ends inside the string. `indexOf` skips the string's content at native speed; a quote
   * is escaped when an odd run of backslashes precedes it.
   */
  private stringEnd(chunk: Uint8Array, from: number): number {
    const firstIsEscaped = this.escapePending;
    this.escapePending = false;
    let quote = from - 1;
    for (;;) {
      quote = chunk.indexOf(QUOTE, quote + 1);
      const end = quote < 0 ? chunk.length : quote;
      let before = end - 1;
      while (before >= from && chunk[before] === BACKSLASH) before--;
      let backslashes = end - 1 - before;
      // A run reaching the chunk start begins with the byte the previous chunk's backslash escaped.
      if (before < from && firstIsEscaped) backslashes++;
      if (quote < 0) {
        this.escapePending = (backslashes & 1) === 1;
        return -1;
      }
      if ((backslashes & 1) === 0) return quote;
    }
  }

  private scanKey(chunk: Uint8Array, from: number, items: SplitItem[]): number {
    const close = this.stringEnd(chunk, from);
    const end = close < 0 ? chunk.length : close;
    if (this.keyBytes.length + (end - from) > this.limits.maxRecordBytes) {
      this.keyBytes.clear();
      return this.fail(chunk, from, 'a member name longer than one record may hold', items);
    }
    this.keyBytes.append(chunk, from, end);
    if (close < 0) return chunk.length;
    this.decodeKey(this.keyBytes.take());
    this.state = KEY_COLON;
    return close + 1;
  }

  private decodeKey(bytes: Uint8Array): void {
    try {
      const parsed: unknown = JSON.parse(`"${keyDecoder.decode(bytes)}"`);
      this.key = typeof parsed === 'string' ? parsed : null;
      this.keyError = null;
    } catch (error) {
      this.key = null;
      this.keyError = `invalid member name: ${error instanceof Error ? error.message : String(error)}`;
    }
  }

  /** Reacts to the delimiter that ended a capture; returns the index after it. */
  private afterCapture(chunk: Uint8Array, boundary: number, items: SplitItem[]): number {
    const byte = chunk[boundary];
    const inArray = this.captureLevel === 2 || this.layout.kind === 'json-array';
    if (byte === COMMA) {
      this.state = inArray ? ARRAY_VALUE : OBJECT_KEY;
      return boundary + 1;
    }
    if (inArray && byte === CLOSE_BRACKET) return this.closeArray(boundary);
    if (!inArray && byte === CLOSE_BRACE) return this.closeTopObject(boundary);
    const expected = inArray
      ? "expected ',' or ']' after an array element"
      : "expected ',' or '}' after a member";
    return this.fail(chunk, boundary, expected, items);
  }

  private closeArray(index: number): number {
    this.depth--;
    this.state = this.depth === 0 ? AFTER_TOP : AFTER_MEMBER;
    return index + 1;
  }

  private closeTopObject(index: number): number {
    this.depth = 0;
    this.state = AFTER_TOP;
    return index + 1;
  }

  private emitCapture(bytes: Uint8Array | null, atEndOfFile: boolean, items: SplitItem[]): void {
    if (bytes === null) {
      this.pushBad(
        items,
        tooLargeReason(this.record.size, this.limits.maxRecordBytes),
        this.record.excerpt,
      );
      return;
    }
    const end = trimmedEnd(bytes, bytes.length);
    const text = bytes.subarray(0, end);
    const excerpt = text.subarray(0, EXCERPT_BYTES);
    if (end === 0) this.pushBad(items, 'missing value', excerpt);
    else if (this.tooDeep) this.pushBad(items, tooDeepReason(this.limits.maxDepth), excerpt);
    else if (this.captureKeyError !== null) this.pushBad(items, this.captureKeyError, excerpt);
    else if (this.captureIsHeader) {
      items.push({
        kind: 'header',
        ...this.capturePlace(),
        name: this.captureKey ?? '',
        bytes: text,
      });
    } else {
      items.push({
        kind: 'record',
        ...this.capturePlace(),
        bytes: text,
        key: this.captureKey,
        atEndOfFile,
      });
    }
  }

  private pushBad(items: SplitItem[], reason: string, excerpt: Uint8Array): void {
    if (this.captureIsHeader) {
      items.push({
        kind: 'bad-header',
        ...this.capturePlace(),
        name: this.captureKey ?? '',
        reason,
        excerpt,
      });
    } else {
      items.push({ kind: 'bad-record', ...this.capturePlace(), reason, excerpt });
    }
  }

  private capturePlace(): { line: number; byteOffset: number } {
    return { line: this.captureLine, byteOffset: this.captureOffset };
  }

  private truncatedContainer(): SplitItem {
    const container =
      this.depth >= 2 && this.layout.kind === 'object-stream'
        ? `"${this.layout.key}" array`
        : this.layout.kind === 'json-array'
          ? 'top-level array'
          : 'top-level object';
    return {
      kind: 'bad-structure',
      line: this.line,
      byteOffset: this.chunkOffset,
      reason: `truncated: the file ends before the ${container} is closed`,
      excerpt: new Uint8Array(0),
    };
  }

  /** The file is not the JSON value this layout needs: nothing in it can be read. */
  private failTop(chunk: Uint8Array, index: number, expected: string, items: SplitItem[]): number {
    items.push({
      kind: 'unreadable',
      line: this.line,
      byteOffset: this.chunkOffset + index,
      reason: `expected ${expected} at the top level, found ${describeByte(chunk[index])}`,
    });
    this.state = DONE;
    return chunk.length;
  }

  /** A structural error: reported once, and the rest of the file is skipped. */
  private fail(chunk: Uint8Array, index: number, expected: string, items: SplitItem[]): number {
    items.push({
      kind: 'bad-structure',
      line: this.line,
      byteOffset: this.chunkOffset + index,
      reason: `invalid JSON structure: ${expected}, found ${describeByte(chunk[index])}; the rest of the file is skipped`,
      excerpt: new Uint8Array(0),
    });
    this.state = DONE;
    return chunk.length;
  }
}
