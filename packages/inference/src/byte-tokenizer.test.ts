import { describe, expect, it } from 'vitest';
import { IncrementalByteDecoder, decodeBytes, encodeBytes } from './byte-tokenizer';

describe('byte tokenizer', () => {
  it('encodes text as its UTF-8 bytes', () => {
    expect(encodeBytes('aé€')).toEqual([0x61, 0xc3, 0xa9, 0xe2, 0x82, 0xac]);
    expect(decodeBytes([0x61, 0xc3, 0xa9, 256])).toBe('aé');
  });

  it('emits a multi-byte character only once all its bytes are in', () => {
    const decoder = new IncrementalByteDecoder();
    const pieces = encodeBytes('a€😀').map((byte) => decoder.push(byte));
    expect(pieces).toEqual(['a', '', '', '€', '', '', '', '😀']);
    expect(decoder.flush()).toBe('');
  });

  it('flushes an unfinished character as U+FFFD', () => {
    const decoder = new IncrementalByteDecoder();
    expect(decoder.push(0xe2)).toBe('');
    expect(decoder.flush()).toBe('\uFFFD');
  });
});
