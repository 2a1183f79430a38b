import {
  terminalText,
  type Action,
  type JsonValue,
  type Observation,
  type Step,
} from '@terrarium/schema';

/**
 * Search vectors computed in JavaScript, equal to what the database computes with
 * `terrarium_search_vector` (migration 001: `to_tsvector('simple', …)` over the fields' excerpts, with
 * `/` and `.` turned into spaces). In PGlite, `to_tsvector` costs about twelve times a bare
 * `JSON.parse` of the imported bytes, more than everything else an import does; this does the same
 * work at JavaScript speed, off the database's thread.
 *
 * Exact only for what it accepts, and it accepts only text it can reproduce exactly: ASCII without
 * the constructs of PostgreSQL's default parser that are not plain words and numbers (XML tags and
 * entities, `~` file names). For anything else it returns null and the caller asks the database,
 * so search matches what it matched before for every text. search-vector.test.ts compares it with
 * `to_tsvector` on every step of the real data sets and on generated text.
 *
 * What the default parser does with such text, as measured with `ts_debug` (PostgreSQL 18 in
 * PGlite, and PostgreSQL 15-17):
 * - a word is a run of ASCII letters and digits (`_`, `:`, `@`, quotes and the rest separate);
 *   one that starts with digits and holds a letter is a word too (`12abc`);
 * - digits followed by `e`, an optional sign and digits are one number (`12e5`, `1e-5`), even when
 *   a letter follows (`12e5x` is `12e5` and `x`); a sign directly before digits belongs to the
 *   number (`-12`, `+1e5`), and nothing after the digits joins it (`-12abc` is `-12` and `abc`);
 * - words joined by single hyphens, each after the first holding a letter, are one compound token
 *   followed by each of its parts as tokens of their own (`a-b` gives `a-b`, `a`, `b`), each
 *   taking a position; a part without a letter ends the compound (`ab-12-cd` is `ab`, `-12`, `cd`,
 *   but `a-b-12` is `a-b`, `a`, `b`, `12`: the hyphen after a compound never signs a number);
 * - tokens of 2,047 bytes or more are left out without taking a position; positions stop at
 *   16,383 and a lexeme keeps its first 255 positions.
 */

/** A tsvector: lexemes in the database's order (bytewise), each with its ascending positions. */
export interface SearchVector {
  lexemes: string[];
  positions: number[][];
}

// Limits of PostgreSQL's tsvector (tsearch/ts_type.h): longest lexeme, last position, positions kept.
const MAX_TOKEN_BYTES = 2046;
const MAX_POSITION = 16383;
const MAX_POSITIONS_PER_LEXEME = 255;

// The head and tail of each field that `terrarium_search_excerpt` keeps.
const EXCERPT_WHOLE = 5120;
const EXCERPT_HEAD = 4096;
const EXCERPT_TAIL = 1024;

const HYPHEN = 0x2d;
const PLUS = 0x2b;
const LOWER_E = 0x65;
const UPPER_E = 0x45;

function isDigit(code: number): boolean {
  return code >= 0x30 && code <= 0x39;
}

function isLetter(code: number): boolean {
  return (code >= 0x61 && code <= 0x7a) || (code >= 0x41 && code <= 0x5a);
}

function isAlnum(code: number): boolean {
  return isDigit(code) || isLetter(code);
}

/**
 * Text the default parser would not read as plain words and numbers: anything outside ASCII (its
 * letters depend on the database's locale), NUL, and the starts of XML tags (`<b`, `<!--`, `<?`),
 * XML entities (`&amp;`, `&#38;`) and `~` file names.
 */
// oxlint-disable-next-line no-control-regex -- NUL is exactly what must be matched here.
const OUTSIDE_PLAIN_WORDS = /[^\x01-\x7f]|<[^\s\d<=]|&[A-Za-z#]|~\S/;

/** Whether `searchVectorOf` can reproduce the database's vector of this text. */
export function isPlainSearchText(text: string): boolean {
  return !OUTSIDE_PLAIN_WORDS.test(text);
}

/** ASCII text as bytes, in a buffer reused from call to call (byte access is what tokenizing does). */
export class AsciiBytes {
  bytes = new Uint8Array(1 << 16);
  length = 0;

  /** Holds `text`, which `isPlainSearchText` accepted (so every character is one byte). */
  set(text: string): this {
    if (text.length > this.bytes.length) this.bytes = new Uint8Array(text.length * 2);
    this.length = encoder.encodeInto(text, this.bytes).written;
    return this;
  }
}

const encoder = new TextEncoder();

/**
 * Splits `text` into the tokens `to_tsvector('simple', …)` would index, in order, and adds each to
 * `table` with its position. The text passed `isPlainSearchText`.
 */
export function tokenizeInto(text: AsciiBytes, table: LexemeTable): void {
  const { bytes, length } = text;
  let at = 0;
  while (at < length) {
    const code = bytes[at] ?? 0;
    if (isAlnum(code)) {
      at = readWordOrNumber(bytes, length, at, table);
    } else if (
      (code === HYPHEN || code === PLUS) &&
      at + 1 < length &&
      isDigit(bytes[at + 1] ?? 0)
    ) {
      at = readNumber(bytes, length, at, at + 1, table);
    } else {
      at++;
    }
  }
}

/** The lexemes and positions `to_tsvector('simple', text)` gives, or null when not reproducible here. */
export function searchVectorOf(text: string): SearchVector | null {
  if (!isPlainSearchText(text)) return null;
  const table = new LexemeTable(true);
  tokenizeInto(new AsciiBytes().set(text), table);
  return table.toVector();
}

/** End of the run of letters and digits starting at `from`. */
function alnumRunEnd(bytes: Uint8Array, length: number, from: number): number {
  let at = from;
  while (at < length && isAlnum(bytes[at] ?? 0)) at++;
  return at;
}

function hasLetter(bytes: Uint8Array, from: number, to: number): boolean {
  for (let at = from; at < to; at++) if (isLetter(bytes[at] ?? 0)) return true;
  return false;
}

/** The byte at `at`, or 0 past the end (0 is never part of a token). */
function byteAt(bytes: Uint8Array, length: number, at: number): number {
  return at < length ? (bytes[at] ?? 0) : 0;
}

/** End of `[eE][+-]?digits` starting at `from`, or -1 when there is no such exponent there. */
function exponentEnd(bytes: Uint8Array, length: number, from: number): number {
  const code = byteAt(bytes, length, from);
  if (code !== LOWER_E && code !== UPPER_E) return -1;
  let at = from + 1;
  const sign = byteAt(bytes, length, at);
  if (sign === HYPHEN || sign === PLUS) at++;
  if (!isDigit(byteAt(bytes, length, at))) return -1;
  while (isDigit(byteAt(bytes, length, at))) at++;
  return at;
}

/** A number (optionally signed: `start` is then at the sign) whose digits begin at `digits`. */
function readNumber(
  bytes: Uint8Array,
  length: number,
  start: number,
  digits: number,
  out: LexemeTable,
): number {
  let at = digits;
  while (isDigit(byteAt(bytes, length, at))) at++;
  const exponent = exponentEnd(bytes, length, at);
  const end = exponent >= 0 ? exponent : at;
  out.addToken(bytes, start, end);
  return end;
}

/** A word, a number, or a hyphenated compound with its parts, starting at a letter or digit. */
function readWordOrNumber(
  bytes: Uint8Array,
  length: number,
  start: number,
  out: LexemeTable,
): number {
  if (isDigit(bytes[start] ?? 0)) {
    let digitsEnd = start;
    while (isDigit(byteAt(bytes, length, digitsEnd))) digitsEnd++;
    if (exponentEnd(bytes, length, digitsEnd) >= 0 || !isLetter(byteAt(bytes, length, digitsEnd))) {
      return readNumber(bytes, length, start, start, out);
    }
  }
  let end = alnumRunEnd(bytes, length, start);
  let parts = 1;
  while (byteAt(bytes, length, end) === HYPHEN && isAlnum(byteAt(bytes, length, end + 1))) {
    const partEnd = alnumRunEnd(bytes, length, end + 1);
    if (!hasLetter(bytes, end + 1, partEnd)) break;
    parts++;
    end = partEnd;
  }
  out.addToken(bytes, start, end);
  if (parts === 1) return end;
  // The parts follow the compound, each with a position of its own.
  let partStart = start;
  while (partStart < end) {
    const partEnd = alnumRunEnd(bytes, length, partStart);
    out.addToken(bytes, partStart, partEnd);
    partStart = partEnd + 1;
  }
  // After a compound, a hyphen that starts no further part is a separator even before digits
  // (`a-b-1` is `a-b`, `a`, `b`, `1`), unlike after a single word (`a-1` is `a`, `-1`).
  return byteAt(bytes, length, end) === HYPHEN ? end + 1 : end;
}

const INITIAL_SLOTS = 1024;

/**
 * A set of lexemes, optionally with positions, kept in flat typed arrays: an import tokenizes
 * hundreds of megabytes, and a string and an array per token made the garbage collector the
 * larger part of the work. Lexemes are lower-cased ASCII bytes in one pool; `reset()` reuses it all.
 */
export class LexemeTable {
  private pool = new Uint8Array(1 << 16);
  private poolUsed = 0;
  private slots = new Int32Array(INITIAL_SLOTS);
  private slotMask = INITIAL_SLOTS - 1;
  private usedSlots: number[] = [];
  // Per entry: where its bytes are, its hash, and its positions as a linked list.
  private start = new Int32Array(256);
  private length = new Int32Array(256);
  private hash = new Int32Array(256);
  private head = new Int32Array(256);
  private tail = new Int32Array(256);
  private positionCount = new Int32Array(256);
  private positionValue = new Int32Array(1024);
  private positionNext = new Int32Array(1024);
  private positionsUsed = 0;
  private position = 0;
  private prefixes = new Float64Array(256);
  count = 0;

  constructor(private readonly withPositions: boolean) {}

  reset(): void {
    for (const slot of this.usedSlots) this.slots[slot] = 0;
    this.usedSlots.length = 0;
    this.poolUsed = 0;
    this.positionsUsed = 0;
    this.position = 0;
    this.count = 0;
  }

  /** The token `bytes[from, to)` at the next position; tokens the database would skip are skipped. */
  addToken(bytes: Uint8Array, from: number, to: number): void {
    const size = to - from;
    if (size > MAX_TOKEN_BYTES) return;
    this.position = Math.min(this.position + 1, MAX_POSITION);
    let hash = 0x811c9dc5;
    for (let at = from; at < to; at++) {
      hash = Math.imul(hash ^ lowerAscii(bytes[at] ?? 0), 0x01000193);
    }
    let slot = hash & this.slotMask;
    for (;;) {
      const stored = this.slots[slot] ?? 0;
      if (stored === 0) break;
      const entry = stored - 1;
      if (
        this.hash[entry] === hash &&
        this.length[entry] === size &&
        this.sameLowered(entry, bytes, from)
      ) {
        this.addPosition(entry);
        return;
      }
      slot = (slot + 1) & this.slotMask;
    }
    const entry = this.newEntry(size, hash, slot);
    const pool = this.pool;
    const base = this.start[entry] ?? 0;
    for (let at = 0; at < size; at++) pool[base + at] = lowerAscii(bytes[from + at] ?? 0);
    this.addPosition(entry);
  }

  /** Adds every lexeme of `other` (no positions): the union of a page's steps. */
  addAll(other: LexemeTable): void {
    for (let entry = 0; entry < other.count; entry++) {
      const from = other.start[entry] ?? 0;
      const size = other.length[entry] ?? 0;
      const hash = other.hash[entry] ?? 0;
      let slot = hash & this.slotMask;
      let found = false;
      for (;;) {
        const stored = this.slots[slot] ?? 0;
        if (stored === 0) break;
        const mine = stored - 1;
        if (
          this.hash[mine] === hash &&
          this.length[mine] === size &&
          this.sameBytes(mine, other.pool, from)
        ) {
          found = true;
          break;
        }
        slot = (slot + 1) & this.slotMask;
      }
      if (found) continue;
      const entryIndex = this.newEntry(size, hash, slot);
      this.pool.set(other.pool.subarray(from, from + size), this.start[entryIndex] ?? 0);
    }
  }

  private sameLowered(entry: number, bytes: Uint8Array, from: number): boolean {
    const base = this.start[entry] ?? 0;
    const size = this.length[entry] ?? 0;
    for (let at = 0; at < size; at++) {
      if (this.pool[base + at] !== lowerAscii(bytes[from + at] ?? 0)) return false;
    }
    return true;
  }

  private sameBytes(entry: number, bytes: Uint8Array, from: number): boolean {
    const base = this.start[entry] ?? 0;
    const size = this.length[entry] ?? 0;
    for (let at = 0; at < size; at++) if (this.pool[base + at] !== bytes[from + at]) return false;
    return true;
  }

  private newEntry(size: number, hash: number, slot: number): number {
    const entry = this.count++;
    if (entry >= this.start.length) this.growEntries();
    if (this.poolUsed + size > this.pool.length) {
      const pool = new Uint8Array(Math.max(this.pool.length * 2, this.poolUsed + size));
      pool.set(this.pool.subarray(0, this.poolUsed));
      this.pool = pool;
    }
    this.start[entry] = this.poolUsed;
    this.length[entry] = size;
    this.hash[entry] = hash;
    this.head[entry] = -1;
    this.tail[entry] = -1;
    this.positionCount[entry] = 0;
    this.poolUsed += size;
    this.slots[slot] = entry + 1;
    this.usedSlots.push(slot);
    // Keep the table at most half full.
    if (this.count * 2 > this.slots.length) this.growSlots();
    return entry;
  }

  private addPosition(entry: number): void {
    if (!this.withPositions) return;
    const count = this.positionCount[entry] ?? 0;
    if (count >= MAX_POSITIONS_PER_LEXEME) return;
    const last = this.tail[entry] ?? -1;
    // Positions stop at MAX_POSITION, where many tokens share the last one; it is kept once.
    if (last >= 0 && this.positionValue[last] === this.position) return;
    if (this.positionsUsed >= this.positionValue.length) {
      const values = new Int32Array(this.positionValue.length * 2);
      values.set(this.positionValue);
      this.positionValue = values;
      const next = new Int32Array(this.positionNext.length * 2);
      next.set(this.positionNext);
      this.positionNext = next;
    }
    const node = this.positionsUsed++;
    this.positionValue[node] = this.position;
    this.positionNext[node] = -1;
    if (last >= 0) this.positionNext[last] = node;
    else this.head[entry] = node;
    this.tail[entry] = node;
    this.positionCount[entry] = count + 1;
  }

  private growEntries(): void {
    const size = this.start.length * 2;
    const grow = (array: Int32Array) => {
      const grown = new Int32Array(size);
      grown.set(array);
      return grown;
    };
    this.start = grow(this.start);
    this.length = grow(this.length);
    this.hash = grow(this.hash);
    this.head = grow(this.head);
    this.tail = grow(this.tail);
    this.positionCount = grow(this.positionCount);
  }

  private growSlots(): void {
    const size = this.slots.length * 2;
    this.slots = new Int32Array(size);
    this.slotMask = size - 1;
    this.usedSlots.length = 0;
    for (let entry = 0; entry < this.count; entry++) {
      let slot = (this.hash[entry] ?? 0) & this.slotMask;
      while ((this.slots[slot] ?? 0) !== 0) slot = (slot + 1) & this.slotMask;
      this.slots[slot] = entry + 1;
      this.usedSlots.push(slot);
    }
  }

  /** Entry numbers in the database's lexeme order: bytewise, a prefix before what extends it. */
  sortedEntries(): Int32Array {
    const count = this.count;
    const pool = this.pool;
    // Sort by each lexeme's first four bytes (zero-padded, so a prefix comes first) as a number,
    // and compare whole lexemes only where those are equal: most comparisons stay numeric.
    if (this.prefixes.length < count) this.prefixes = new Float64Array(this.start.length);
    const prefixes = this.prefixes;
    for (let entry = 0; entry < count; entry++) {
      const from = this.start[entry] ?? 0;
      const size = this.length[entry] ?? 0;
      let prefix = 0;
      for (let at = 0; at < 4; at++)
        prefix = prefix * 256 + (at < size ? (pool[from + at] ?? 0) : 0);
      prefixes[entry] = prefix;
    }
    const order = new Int32Array(count);
    for (let entry = 0; entry < count; entry++) order[entry] = entry;
    this.quickSort(order, 0, count - 1);
    return order;
  }

  private compare(a: number, b: number): number {
    const difference = (this.prefixes[a] ?? 0) - (this.prefixes[b] ?? 0);
    return difference !== 0 ? difference : this.compareEntries(a, b);
  }

  private quickSort(order: Int32Array, low: number, high: number): void {
    while (high - low > 16) {
      const pivot = order[(low + high) >> 1] ?? 0;
      let left = low;
      let right = high;
      while (left <= right) {
        while (this.compare(order[left] ?? 0, pivot) < 0) left++;
        while (this.compare(order[right] ?? 0, pivot) > 0) right--;
        if (left <= right) {
          const swap = order[left] ?? 0;
          order[left] = order[right] ?? 0;
          order[right] = swap;
          left++;
          right--;
        }
      }
      // Recurse into the smaller side, loop on the larger: stack depth stays logarithmic.
      if (right - low < high - left) {
        this.quickSort(order, low, right);
        low = left;
      } else {
        this.quickSort(order, left, high);
        high = right;
      }
    }
    for (let at = low + 1; at <= high; at++) {
      const entry = order[at] ?? 0;
      let into = at;
      while (into > low && this.compare(order[into - 1] ?? 0, entry) > 0) {
        order[into] = order[into - 1] ?? 0;
        into--;
      }
      order[into] = entry;
    }
  }

  private compareEntries(a: number, b: number): number {
    const aStart = this.start[a] ?? 0;
    const bStart = this.start[b] ?? 0;
    const aLength = this.length[a] ?? 0;
    const bLength = this.length[b] ?? 0;
    const shared = Math.min(aLength, bLength);
    for (let at = 0; at < shared; at++) {
      const difference = (this.pool[aStart + at] ?? 0) - (this.pool[bStart + at] ?? 0);
      if (difference !== 0) return difference;
    }
    return aLength - bLength;
  }

  /**
   * Writes the vector in PostgreSQL's binary form (`tsvectorsend`) at `offset` of `target`, which
   * has `binarySize()` bytes free there, and returns the offset after it: the lexeme count, then per
   * lexeme its bytes, a NUL, the number of positions and each position (16 bits, big-endian).
   * Without positions (`withPositions` false) it is a stripped vector.
   */
  writeBinary(target: Uint8Array, offset: number): number {
    const order = this.sortedEntries();
    let at = offset;
    const count = this.count;
    target[at++] = count >>> 24;
    target[at++] = (count >>> 16) & 0xff;
    target[at++] = (count >>> 8) & 0xff;
    target[at++] = count & 0xff;
    const pool = this.pool;
    for (let index = 0; index < count; index++) {
      const entry = order[index] ?? 0;
      const from = this.start[entry] ?? 0;
      const to = from + (this.length[entry] ?? 0);
      for (let byte = from; byte < to; byte++) target[at++] = pool[byte] ?? 0;
      target[at++] = 0;
      const positions = this.withPositions ? (this.positionCount[entry] ?? 0) : 0;
      target[at++] = positions >>> 8;
      target[at++] = positions & 0xff;
      if (positions === 0) continue;
      for (let node = this.head[entry] ?? -1; node >= 0; node = this.positionNext[node] ?? -1) {
        const position = this.positionValue[node] ?? 0;
        target[at++] = position >>> 8;
        target[at++] = position & 0xff;
      }
    }
    return at;
  }

  /** Bytes `writeBinary` writes, for a length prefix. */
  binarySize(): number {
    let size = 4;
    for (let entry = 0; entry < this.count; entry++) {
      size += (this.length[entry] ?? 0) + 3;
      if (this.withPositions) size += 2 * (this.positionCount[entry] ?? 0);
    }
    return size;
  }

  toVector(): SearchVector {
    const decoder = new TextDecoder();
    const lexemes: string[] = [];
    const positions: number[][] = [];
    for (const entry of this.sortedEntries()) {
      const from = this.start[entry] ?? 0;
      lexemes.push(decoder.decode(this.pool.subarray(from, from + (this.length[entry] ?? 0))));
      const list: number[] = [];
      for (let node = this.head[entry] ?? -1; node >= 0; node = this.positionNext[node] ?? -1) {
        list.push(this.positionValue[node] ?? 0);
      }
      positions.push(list);
    }
    return { lexemes, positions };
  }
}

function lowerAscii(code: number): number {
  return code >= 0x41 && code <= 0x5a ? code + 0x20 : code;
}

/** `terrarium_search_excerpt`: short text whole, long text by its head and tail (code points). */
export function searchExcerpt(text: string): string {
  if (text.length <= EXCERPT_WHOLE) return text;
  const points = Array.from(text);
  if (points.length <= EXCERPT_WHOLE) return text;
  return `${points.slice(0, EXCERPT_HEAD).join('')} ${points.slice(-EXCERPT_TAIL).join('')}`;
}

/** `terrarium_search_vector`'s text before `to_tsvector`: the fields' excerpts, `/` and `.` as spaces. */
export function searchText(fields: readonly (string | null)[]): string {
  return fields
    .flatMap((field) => (field === null ? [] : [searchExcerpt(field)]))
    .join(' ')
    .replace(/[/.]/g, ' ');
}

/**
 * The indexed text of an observation, as the viewer shows it: terminal output with its escape
 * sequences gone and overwrites (`\r`, `\b`, cursor moves) played, so a phrase read on screen is
 * the phrase found (`\x1b[33mprivate argument` is indexed as `private argument`, not
 * `33mprivate`); other kinds as they are, as the viewer shows them. Snippets quote the same text.
 * Pages stored before this were re-indexed once (search-reindex.ts).
 */
export function observationSearchText(observation: Observation): string {
  return observation.kind === 'terminal' ? terminalText(observation.content) : observation.content;
}

/** A step's indexed fields (each excerpted and joined by `searchText`). */
export interface StepSearchFields {
  action: string;
  reasoning: string | null;
  content: string | null;
}

/** The fields search indexes for a step, and quotes in its snippets. */
export function stepSearchFields(step: Step): StepSearchFields {
  return {
    action: actionSearchText(step.action),
    reasoning: step.reasoning,
    content: step.observation === null ? null : observationSearchText(step.observation),
  };
}

/**
 * The indexed text of a step's action, as SQL builds it from the stored jsonb: name, command, keys,
 * text and the arguments in jsonb's text form, space-separated, absent fields left out.
 */
export function actionSearchText(action: Action): string {
  switch (action.type) {
    case 'tool_call':
    case 'browser':
      return `${action.name} ${jsonbText(action.arguments)}`;
    case 'command':
      return action.command;
    case 'keystrokes':
      return action.keys;
    case 'message':
      return action.text;
  }
}

/**
 * A JSON value as PostgreSQL prints it as jsonb: object keys ordered by byte length, then bytes;
 * `, ` and `: ` between members; numbers as `numeric` prints them (no exponent).
 */
export function jsonbText(value: JsonValue): string {
  if (value === null) return 'null';
  if (typeof value === 'boolean') return value ? 'true' : 'false';
  if (typeof value === 'number') return numericText(value);
  if (typeof value === 'string') return jsonbString(value);
  if (Array.isArray(value)) return `[${value.map(jsonbText).join(', ')}]`;
  const keys = Object.keys(value).toSorted(compareJsonbKeys);
  const members: string[] = [];
  for (const key of keys) {
    const member = value[key];
    // JSON.stringify (what the database was given) leaves out undefined members.
    if (member === undefined) continue;
    members.push(`${jsonbString(key)}: ${jsonbText(member)}`);
  }
  return `{${members.join(', ')}}`;
}

const utf8 = new TextEncoder();

function compareJsonbKeys(a: string, b: string): number {
  const left = utf8.encode(a);
  const right = utf8.encode(b);
  if (left.length !== right.length) return left.length - right.length;
  for (let at = 0; at < left.length; at++) {
    const difference = (left[at] ?? 0) - (right[at] ?? 0);
    if (difference !== 0) return difference;
  }
  return 0;
}

/**
 * JSON.stringify's string escapes are jsonb's: `\"`, `\\`, `\b\f\n\r\t`, `\u00xx` for the rest.
 * NUL and lone surrogates reach the database as U+2400 and U+FFFD (json-payload.ts), so they are
 * written as those characters here.
 */
function jsonbString(text: string): string {
  return JSON.stringify(text.replace(/\0/g, '\u2400').replace(LONE_SURROGATE, '\ufffd'));
}

const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

/**
 * A number the way `numeric` prints the JSON text JSON.stringify wrote for it: plain digits, the
 * exponent applied (`1e+21` → `1000000000000000000000`, `1.5e-7` → `0.00000015`).
 */
export function numericText(value: number): string {
  const written = JSON.stringify(value);
  const match = /^(-?)(\d+)(?:\.(\d+))?e([+-]\d+)$/.exec(written);
  if (match === null) return written;
  const [, sign = '', whole = '', fraction = '', exponentText = '0'] = match;
  const exponent = Number(exponentText);
  const digits = whole + fraction;
  const point = whole.length + exponent;
  if (point <= 0) return `${sign}0.${'0'.repeat(-point)}${digits}`;
  if (point >= digits.length) return `${sign}${digits}${'0'.repeat(point - digits.length)}`;
  return `${sign}${digits.slice(0, point)}.${digits.slice(point)}`;
}

const utf8Encoder = new TextEncoder();
const utf8Decoder = new TextDecoder();

/** Lexemes in the database's order: bytewise on UTF-8, a prefix before what extends it. */
export function sortLexemes(lexemes: Iterable<string>): string[] {
  return [...lexemes]
    .map((lexeme) => ({ lexeme, bytes: utf8Encoder.encode(lexeme) }))
    .toSorted((a, b) => Buffer.compare(a.bytes, b.bytes))
    .map(({ lexeme }) => lexeme);
}

/** A vector in PostgreSQL's binary form from lexemes in database order and their positions. */
export function tsvectorBinary(
  lexemes: readonly string[],
  positions: readonly number[][],
): Uint8Array {
  const parts = lexemes.map((lexeme) => utf8Encoder.encode(lexeme));
  let size = 4;
  parts.forEach((bytes, at) => {
    size += bytes.length + 3 + 2 * (positions[at]?.length ?? 0);
  });
  const out = new Uint8Array(size);
  const view = new DataView(out.buffer);
  view.setInt32(0, lexemes.length);
  let offset = 4;
  parts.forEach((bytes, at) => {
    out.set(bytes, offset);
    offset += bytes.length + 1;
    const list = positions[at] ?? [];
    view.setUint16(offset, list.length);
    offset += 2;
    for (const position of list) {
      view.setUint16(offset, position);
      offset += 2;
    }
  });
  return out;
}

/** The lexemes of a vector in binary form (`tsvectorBinary`, `LexemeTable.writeBinary`). */
export function lexemesOfBinary(vector: Uint8Array): string[] {
  const view = new DataView(vector.buffer, vector.byteOffset, vector.byteLength);
  const count = view.getInt32(0);
  const lexemes: string[] = [];
  let offset = 4;
  for (let entry = 0; entry < count; entry++) {
    const end = vector.indexOf(0, offset);
    lexemes.push(utf8Decoder.decode(vector.subarray(offset, end)));
    const positions = view.getUint16(end + 1);
    offset = end + 3 + 2 * positions;
  }
  return lexemes;
}
