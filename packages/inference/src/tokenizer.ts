import { BYTE_VOCABULARY, IncrementalByteDecoder, encodeBytes } from './byte-tokenizer';

/** Turns generated token ids into text as they arrive. */
export interface StreamDecoder {
  /** The text completed by this token ('' while a character or merge is still incomplete). */
  push(id: number): string;
  /** Whatever is still held back (an unfinished character as U+FFFD), at the end of the stream. */
  flush(): string;
}

/** What the decoder needs of a tokenizer: the byte one of Terrarium models, or a model's own. */
export interface TextTokenizer {
  /** `bytes` (Terrarium's byte-level vocabulary) or `tokenizer.json`. */
  readonly kind: 'bytes' | 'tokenizer.json';
  /** Ids below this are known to the tokenizer (specials of the model's config aside). */
  readonly vocabSize: number;
  encode(text: string): number[];
  /**
   * A decoder for the tokens generated after `context` (the prompt's ids): some tokenizers decode
   * a token differently at the start of a text (a leading space dropped), so the last prompt ids
   * are decoded with it and their text is not emitted.
   */
  streamDecoder(context?: readonly number[]): StreamDecoder;
  /** Whether a model may generate this id: never a special token (EOS is the decoder's business). */
  isGenerable(id: number): boolean;
  /** The id of a special (added) token such as `<|endoftext|>`, undefined when it has none. */
  specialTokenId(content: string): number | undefined;
  /** The ids as text with special tokens written out (for showing a prompt, not for output). */
  describe(ids: readonly number[]): string;
  /**
   * The UTF-8 bytes a token stands for (what constrained decoding checks), or undefined for a
   * special token or a tokenizer whose tokens are not byte sequences.
   */
  tokenBytes(id: number): Uint8Array | undefined;
}

/** One token per UTF-8 byte (ids 0–255); the model's specials (EOS, padding) come after. */
export const byteTokenizer: TextTokenizer = {
  kind: 'bytes',
  vocabSize: BYTE_VOCABULARY,
  encode: encodeBytes,
  streamDecoder(): StreamDecoder {
    const bytes = new IncrementalByteDecoder();
    return {
      // Specials carry no text; the byte decoder would read their id as a byte.
      push: (id) => (id < BYTE_VOCABULARY ? bytes.push(id) : ''),
      flush: () => bytes.flush(),
    };
  },
  isGenerable: (id) => id >= 0 && id < BYTE_VOCABULARY,
  specialTokenId: () => undefined,
  tokenBytes: (id) => (id >= 0 && id < BYTE_VOCABULARY ? Uint8Array.of(id) : undefined),
  describe(ids) {
    const bytes = new IncrementalByteDecoder();
    return ids.map((id) => (id < BYTE_VOCABULARY ? bytes.push(id) : '')).join('') + bytes.flush();
  },
};
