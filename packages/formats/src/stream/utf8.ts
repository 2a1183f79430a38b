import { LF } from './byte-codes';

const lossyDecoder = new TextDecoder('utf-8');

/**
 * Index of the first byte in `bytes[from…]` that does not start a valid UTF-8 sequence (WHATWG
 * rules: no overlong forms, no surrogates, nothing above U+10FFFF), or -1. With `allowCutTail`, a
 * sequence cut short by the end of `bytes` counts as valid (a head read stops anywhere).
 */
export function invalidUtf8At(bytes: Uint8Array, from = 0, allowCutTail = false): number {
  const length = bytes.length;
  let index = from;
  while (index < length) {
    const lead = bytes[index] ?? 0;
    if (lead < 0x80) {
      index++;
      continue;
    }
    let size: number;
    let low = 0x80;
    let high = 0xbf;
    if (lead >= 0xc2 && lead <= 0xdf) size = 2;
    else if (lead >= 0xe0 && lead <= 0xef) {
      size = 3;
      if (lead === 0xe0) low = 0xa0;
      if (lead === 0xed) high = 0x9f;
    } else if (lead >= 0xf0 && lead <= 0xf4) {
      size = 4;
      if (lead === 0xf0) low = 0x90;
      if (lead === 0xf4) high = 0x8f;
    } else return index;
    for (let offset = 1; offset < size; offset++) {
      const next = bytes[index + offset];
      if (next === undefined) return allowCutTail ? -1 : index;
      if (next < low || next > high) return index;
      low = 0x80;
      high = 0xbf;
    }
    index += size;
  }
  return -1;
}

/** `bytes` without a UTF-8 sequence cut short at its end. */
export function withoutCutTail(bytes: Uint8Array): Uint8Array {
  const length = bytes.length;
  for (let back = 1; back <= 3 && back <= length; back++) {
    const byte = bytes[length - back] ?? 0;
    if (byte < 0x80) return bytes;
    if (byte >= 0xc0) {
      const size = byte >= 0xf0 ? 4 : byte >= 0xe0 ? 3 : 2;
      return size > back ? bytes.subarray(0, length - back) : bytes;
    }
  }
  return bytes;
}

/** Text for showing: invalid bytes become U+FFFD, a sequence cut at the end is dropped. */
export function decodeForDisplay(bytes: Uint8Array): string {
  return lossyDecoder.decode(withoutCutTail(bytes));
}

/** How many bytes UTF-8 needs for `text.slice(0, end)`. */
export function utf8Length(text: string, end: number): number {
  let bytes = 0;
  for (let index = 0; index < end; index++) {
    const code = text.charCodeAt(index);
    if (code < 0x80) bytes += 1;
    else if (code < 0x800) bytes += 2;
    else if (code >= 0xd800 && code <= 0xdbff && index + 1 < end) {
      // A surrogate pair is one 4-byte character.
      bytes += 4;
      index++;
    } else bytes += 3;
  }
  return bytes;
}

export function countLineFeeds(bytes: Uint8Array, end: number): number {
  let count = 0;
  let index = bytes.indexOf(LF);
  while (index >= 0 && index < end) {
    count++;
    index = bytes.indexOf(LF, index + 1);
  }
  return count;
}
