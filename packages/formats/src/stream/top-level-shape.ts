import { CR, LF, OPEN_BRACE, OPEN_BRACKET, SPACE, TAB } from './byte-codes';
import { invalidUtf8At } from './utf8';

/**
 * What a file looks like from its first bytes:
 * - `empty`: nothing but whitespace (and a BOM);
 * - `binary`: NUL bytes or mostly control bytes / invalid UTF-8;
 * - `jsonl`: a first line that is a whole JSON value, followed by more lines;
 * - `json-array` / `json-object`: one JSON value starting with `[` / `{` (a one-line JSONL file, or
 *   one whose first line does not fit in the head, looks like this too);
 * - `text`: anything else.
 */
export type TopLevelShape = 'empty' | 'binary' | 'jsonl' | 'json-array' | 'json-object' | 'text';

export const UTF8_BOM = Uint8Array.of(0xef, 0xbb, 0xbf);
const BINARY_SAMPLE_BYTES = 8192;
const encoder = new TextEncoder();
const headDecoder = new TextDecoder('utf-8');

export function utf8BomLength(bytes: Uint8Array): number {
  return bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf ? 3 : 0;
}

export interface BinaryEvidence {
  byteOffset: number;
  reason: string;
}

/** Compressed and archive formats by their first bytes, to say what a file is instead of "binary". */
const PACKED: readonly { name: string; magic: readonly (number | null)[]; remedy: string }[] = [
  { name: 'gzip', magic: [0x1f, 0x8b], remedy: 'gunzip it' },
  { name: 'zip', magic: [0x50, 0x4b, 0x03, 0x04], remedy: 'unzip it' },
  { name: 'zstd', magic: [0x28, 0xb5, 0x2f, 0xfd], remedy: 'unzstd it' },
  { name: 'xz', magic: [0xfd, 0x37, 0x7a, 0x58, 0x5a, 0x00], remedy: 'unxz it' },
  // "BZh", the block size (any digit: null), then the first block's mark, so that text starting
  // "BZh" is not taken for one.
  {
    name: 'bzip2',
    magic: [0x42, 0x5a, 0x68, null, 0x31, 0x41, 0x59, 0x26, 0x53, 0x59],
    remedy: 'bunzip2 it',
  },
];

/** Why these first bytes are not UTF-8 text, or null when they are. */
export function findBinaryEvidence(head: Uint8Array): BinaryEvidence | null {
  const packed = PACKED.find(({ magic }) =>
    magic.every((byte, index) => index < head.length && (byte === null || head[index] === byte)),
  );
  if (packed !== undefined)
    return {
      byteOffset: 0,
      reason: `${packed.name}-compressed file: only uncompressed text is read; ${packed.remedy} first`,
    };
  const utf16 = (head[0] === 0xff && head[1] === 0xfe) || (head[0] === 0xfe && head[1] === 0xff);
  if (utf16) return { byteOffset: 0, reason: 'binary file: UTF-16 text (only UTF-8 is read)' };
  const nul = head.indexOf(0);
  if (nul >= 0) return { byteOffset: nul, reason: `binary file: NUL byte at byte offset ${nul}` };
  const sample = head.subarray(0, BINARY_SAMPLE_BYTES);
  let suspicious = 0;
  let first = -1;
  for (let index = 0; index < sample.length; index++) {
    const byte = sample[index] ?? 0;
    if (
      (byte < SPACE && byte !== TAB && byte !== LF && byte !== CR && byte !== 0x0c) ||
      byte === 0x7f
    ) {
      suspicious++;
      if (first < 0) first = index;
    }
  }
  let invalid = invalidUtf8At(sample, 0, true);
  while (invalid >= 0) {
    suspicious++;
    if (first < 0 || invalid < first) first = invalid;
    invalid = invalidUtf8At(sample, invalid + 1, true);
  }
  // A stray control byte is a bad record; a tenth of them is not text at all.
  if (suspicious * 10 > sample.length) {
    return {
      byteOffset: first,
      reason: `binary file: ${suspicious} of the first ${sample.length} bytes are control bytes or invalid UTF-8`,
    };
  }
  return null;
}

export function topLevelShape(head: string | Uint8Array): TopLevelShape {
  const bytes = typeof head === 'string' ? encoder.encode(head) : head;
  const bom = utf8BomLength(bytes);
  const body = bom === 0 ? bytes : bytes.subarray(bom);
  if (findBinaryEvidence(body) !== null) return 'binary';
  let start = 0;
  while (start < body.length && isSpace(body[start])) start++;
  if (start === body.length) return 'empty';
  const first = body[start];
  if (first !== OPEN_BRACE && first !== OPEN_BRACKET) return 'text';
  const whole = first === OPEN_BRACE ? 'json-object' : 'json-array';
  const newline = body.indexOf(LF, start);
  if (newline < 0) return whole;
  let next = newline + 1;
  while (next < body.length && isSpace(body[next])) next++;
  if (next === body.length) return whole;
  try {
    JSON.parse(headDecoder.decode(body.subarray(start, newline)));
    return 'jsonl';
  } catch {
    return whole;
  }
}

function isSpace(byte: number | undefined): boolean {
  return byte === SPACE || byte === LF || byte === CR || byte === TAB;
}
