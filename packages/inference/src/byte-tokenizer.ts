/**
 * The bundled model's tokenizer: one token per UTF-8 byte (ids 0–255), then specials. Any model
 * folder whose config says `"terrarium": {"tokenizer": "bytes"}` uses it.
 */
export const BYTE_VOCABULARY = 256;

const encoder = new TextEncoder();

export function encodeBytes(text: string): number[] {
  return Array.from(encoder.encode(text));
}

/** Decodes byte tokens as they arrive; a multi-byte character is emitted once all its bytes are in. */
export class IncrementalByteDecoder {
  // `stream: true` makes TextDecoder hold back an incomplete character until its last byte arrives.
  private readonly decoder = new TextDecoder('utf-8');

  /** The text completed by this byte ('' while a character is still incomplete). */
  push(byte: number): string {
    return this.decoder.decode(Uint8Array.of(byte), { stream: true });
  }

  /** Whatever an unfinished character left (as U+FFFD), at the end of the stream. */
  flush(): string {
    return this.decoder.decode();
  }
}

export function decodeBytes(tokens: readonly number[]): string {
  return new TextDecoder('utf-8').decode(
    Uint8Array.from(tokens.filter((t) => t < BYTE_VOCABULARY)),
  );
}
