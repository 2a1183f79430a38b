import { Tokenizer } from '@huggingface/tokenizers';
import type { StreamDecoder, TextTokenizer } from './tokenizer';

/** Prompt ids decoded before the first generated one, for context (as vLLM's detokenizer does). */
const CONTEXT_IDS = 4;
/** A window this long with nothing held back slides forward, so each token costs O(1) decodes. */
const WINDOW_IDS = 12;
/**
 * An unfinished character never needs more than 3 further tokens (UTF-8 has at most 4 bytes and a
 * token carries at least one). A U+FFFD still trailing after this many is invalid output and is
 * let through, so that a run of invalid bytes cannot make every decode longer.
 */
const MAX_HELD_IDS = 32;

const REPLACEMENT = '\uFFFD';

function isObject(value: unknown): value is object {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * A model's own tokenizer, from the `tokenizer.json` (and `tokenizer_config.json`, when the folder
 * has one) that transformers.js and Optimum exports carry: BPE (byte-level or SentencePiece style),
 * WordPiece, Unigram, run by @huggingface/tokenizers (pure JS: Node and the browser).
 */
export function createHfTokenizer(
  tokenizerJson: unknown,
  tokenizerConfig?: unknown,
): TextTokenizer {
  if (!isObject(tokenizerJson) || !('model' in tokenizerJson)) {
    throw new Error('tokenizer.json is not a tokenizer (no "model" in it)');
  }
  if (tokenizerConfig !== undefined && !isObject(tokenizerConfig)) {
    throw new Error('tokenizer_config.json is not a JSON object');
  }
  const tokenizer = new Tokenizer(tokenizerJson, tokenizerConfig ?? {});
  const specials = new Set<number>();
  const specialIds = new Map<string, number>();
  let vocabSize = 0;
  for (const id of tokenizer.get_vocab(true).values()) vocabSize = Math.max(vocabSize, id + 1);
  for (const [id, added] of tokenizer.get_added_tokens_decoder()) {
    if (added.special) {
      specials.add(id);
      specialIds.set(added.content, id);
    }
    vocabSize = Math.max(vocabSize, id + 1);
  }
  // The text must come back as the model wrote it: no " ." → "." clean-up, no specials.
  const decode = (ids: readonly number[]): string =>
    // The library refuses an empty list.
    ids.length === 0
      ? ''
      : tokenizer.decode([...ids], {
          skip_special_tokens: true,
          clean_up_tokenization_spaces: false,
        });

  const bytesOf = byteLevelTokenBytes(tokenizerJson, tokenizer, specials, vocabSize);
  return {
    kind: 'tokenizer.json',
    vocabSize,
    encode: (text) => tokenizer.encode(text).ids,
    streamDecoder: (context = []) => windowedStreamDecoder(decode, context.slice(-CONTEXT_IDS)),
    isGenerable: (id) => id >= 0 && id < vocabSize && !specials.has(id),
    specialTokenId: (content) => specialIds.get(content),
    tokenBytes: (id) => bytesOf?.[id],
    describe: (ids) =>
      ids.length === 0
        ? ''
        : tokenizer.decode([...ids], {
            skip_special_tokens: false,
            clean_up_tokenization_spaces: false,
          }),
  };
}

/** Bytes GPT-2's byte-level alphabet writes as themselves. */
function printable(byte: number): boolean {
  return (
    (byte >= 0x21 && byte <= 0x7e) ||
    (byte >= 0xa1 && byte <= 0xac) ||
    (byte >= 0xae && byte <= 0xff)
  );
}

/**
 * GPT-2's printable stand-in for each byte (what byte-level BPE vocabularies are written in):
 * printable Latin-1 bytes stand for themselves, the others for code points from 256 on.
 */
function byteOfStandIn(): Map<string, number> {
  const map = new Map<string, number>();
  let next = 256;
  for (let byte = 0; byte < 256; byte++) {
    map.set(String.fromCodePoint(printable(byte) ? byte : next++), byte);
  }
  return map;
}

/**
 * Every token's bytes, for a byte-level BPE (decoder ByteLevel); undefined for other kinds, whose
 * tokens are not byte sequences in the vocabulary.
 */
function byteLevelTokenBytes(
  tokenizerJson: object,
  tokenizer: Tokenizer,
  specials: ReadonlySet<number>,
  vocabSize: number,
): (Uint8Array | undefined)[] | undefined {
  const decoder: unknown = Reflect.get(tokenizerJson, 'decoder');
  if (
    typeof decoder !== 'object' ||
    decoder === null ||
    Reflect.get(decoder, 'type') !== 'ByteLevel'
  )
    return undefined;
  const byteOf = byteOfStandIn();
  const out: (Uint8Array | undefined)[] = [];
  for (let id = 0; id < vocabSize; id++) {
    const token = specials.has(id) ? undefined : tokenizer.id_to_token(id);
    if (token === undefined) {
      out.push(undefined);
      continue;
    }
    const bytes: number[] = [];
    for (const char of token) {
      const byte = byteOf.get(char);
      if (byte === undefined) break;
      bytes.push(byte);
    }
    out.push(bytes.length === [...token].length ? Uint8Array.from(bytes) : undefined);
  }
  return out;
}

/**
 * Streams text by decoding a short window of recent ids and emitting what the newest one added.
 * A trailing U+FFFD is held back: it is usually the first bytes of a character whose last bytes
 * the next token brings.
 */
function windowedStreamDecoder(
  decode: (ids: readonly number[]) => string,
  context: readonly number[],
): StreamDecoder {
  let window = [...context];
  // Characters of decode(window) already emitted, or belonging to the prompt.
  let done = decode(window).length;
  let held = 0;

  return {
    push(id) {
      window.push(id);
      const text = decode(window);
      let end = text.length;
      while (end > done && text[end - 1] === REPLACEMENT) end--;
      held = end === text.length ? 0 : held + 1;
      if (held > MAX_HELD_IDS) {
        end = text.length;
        held = 0;
      }
      // A shorter text than before (a context that ended mid-character) emits nothing twice.
      const out = end > done ? text.slice(done, end) : '';
      done = Math.max(done, end);
      if (held === 0 && window.length > WINDOW_IDS) {
        // Nothing is pending: the last ids keep enough context to decode the next one alike.
        window = window.slice(-CONTEXT_IDS);
        done = decode(window).length;
      }
      return out;
    },
    flush() {
      const text = decode(window);
      const out = text.slice(done);
      done = Math.max(done, text.length);
      held = 0;
      return out;
    },
  };
}
