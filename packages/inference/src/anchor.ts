import type { PromptNeighbor } from './prompt';
import type { TextTokenizer } from './tokenizer';

/** A reference answer to lean on and how strongly (the decoder's `anchor` option). */
export interface AnchorOption {
  text: string;
  /** Nats added to the log-probability of the token that continues `text`. */
  bias: number;
}

/**
 * Ten to one: the first neighbor's next token is kept unless the model finds another at least ten
 * times likelier (fixed before it was measured; models/README.md shows other values too).
 */
export const ANCHOR_BIAS = Math.log(10);

/**
 * What a prediction's decoding leans on (the decoder's `anchor` option): the first neighbor's recorded
 * answer, which retrieval alone would return; none without neighbors or at bias 0. The server's
 * simulator and the browser's worker both decide it here.
 */
export function neighborAnchor(
  neighbors: readonly PromptNeighbor[],
  bias: number = ANCHOR_BIAS,
): AnchorOption | undefined {
  const reference = neighbors[0]?.observation;
  return reference === undefined || bias <= 0 ? undefined : { text: reference, bias };
}

/** Bytes of output that must match the reference again before the anchor follows it again. */
export const REALIGN_BYTES = 6;

/**
 * Decoding anchored on a reference answer: a world model's prompt shows the recorded answer of the
 * nearest transition, which is right in most of its bytes (retrieval alone answers with it), and a
 * small model copying it still drops or alters a field now and then. An anchor follows the output
 * along the reference and names the token that would continue it; the decoder gives that token a
 * bonus (`bias`, in nats), so the reference is kept where the model hesitates and left where the
 * model is sure of something else (an id the action changes, an error). Bias 0 is the model alone;
 * an infinite bias copies the reference, which is retrieval.
 *
 * After the output leaves the reference, the anchor waits until the output's last
 * `REALIGN_BYTES` bytes occur in the reference again (at or after where it left) and follows from
 * there: a changed id of another length, or a field the model adds, does not end the anchoring.
 */
export class Anchor {
  readonly #reference: Uint8Array;
  readonly #tokenizer: TextTokenizer;
  readonly #eos: number;
  /** The output's bytes so far (realignment looks at their end). */
  #output: number[] = [];
  /** Where in the reference the output stands, or null while it has left the reference. */
  #at: number | null = 0;
  /** Where the output last left the reference: realignment looks there and after. */
  #leftAt = 0;
  /** The reference's tokens from some position on, by the byte position each starts at. */
  #tokenAt = new Map<number, number>();
  /** False when the tokenizer has no byte tokens, or its tokens do not spell the reference. */
  #usable: boolean;

  constructor(reference: string, tokenizer: TextTokenizer, eos: number) {
    this.#reference = new TextEncoder().encode(reference);
    this.#tokenizer = tokenizer;
    this.#eos = eos;
    this.#usable = this.#tokenizeFrom(0);
  }

  /** The token that continues the reference here (EOS at its end), undefined while off it. */
  candidate(): number | undefined {
    const at = this.#at;
    if (!this.#usable || at === null) return undefined;
    if (at === this.#reference.length) return this.#eos;
    let token = this.#tokenAt.get(at);
    // Mid-token (the model split the reference's token differently): tokenize the rest afresh.
    if (token === undefined && this.#tokenizeFrom(at)) token = this.#tokenAt.get(at);
    return token;
  }

  /** Up to `limit` tokens that continue the reference from here (no EOS): a lookahead draft. */
  draft(limit: number): number[] {
    const tokens: number[] = [];
    let at = this.#at;
    // candidate() also tokenizes the rest of the reference afresh when the output stands mid-token.
    if (at === null || this.candidate() === undefined) return tokens;
    while (tokens.length < limit && at < this.#reference.length) {
      const token = this.#tokenAt.get(at);
      const bytes = token === undefined ? undefined : this.#tokenizer.tokenBytes(token);
      if (token === undefined || bytes === undefined) break;
      tokens.push(token);
      at += bytes.length;
    }
    return tokens;
  }

  /** Whether the output stands on the reference (it has not left it, or has realigned). */
  isOn(): boolean {
    return this.#usable && this.#at !== null;
  }

  /** The reference's byte where the output last left it (0 before it ever has). */
  leftAt(): number {
    return this.#leftAt;
  }

  /** The reference from byte `at` on, as text; null when `at` is inside a character. */
  referenceFrom(at: number): string | null {
    const first = this.#reference[at];
    if (first !== undefined && (first & 0xc0) === 0x80) return null;
    return new TextDecoder().decode(this.#reference.subarray(at));
  }

  /** Follows a generated token (not EOS). */
  advance(token: number): void {
    const bytes = this.#tokenizer.tokenBytes(token);
    if (!this.#usable || bytes === undefined) return;
    for (const byte of bytes) this.#output.push(byte);
    const at = this.#at;
    if (at !== null) {
      if (this.#matches(bytes, at)) {
        this.#at = at + bytes.length;
        return;
      }
      this.#leftAt = at;
      this.#at = null;
    }
    this.#realign();
  }

  /** Whether the reference holds `bytes` at `at`. */
  #matches(bytes: ArrayLike<number>, at: number): boolean {
    if (at + bytes.length > this.#reference.length) return false;
    for (let i = 0; i < bytes.length; i++) if (this.#reference[at + i] !== bytes[i]) return false;
    return true;
  }

  /** Back on the reference after the first place at or after `leftAt` its last bytes occur. */
  #realign(): void {
    const output = this.#output;
    if (output.length < REALIGN_BYTES) return;
    const tail = output.slice(output.length - REALIGN_BYTES);
    const last = this.#reference.length - REALIGN_BYTES;
    for (let start = this.#leftAt; start <= last; start++) {
      if (this.#matches(tail, start)) {
        this.#at = start + REALIGN_BYTES;
        return;
      }
    }
  }

  /**
   * Tokenizes the reference from byte `at` (a character boundary) on; false when it cannot: the
   * position is inside a character, or the tokens do not spell the bytes (normalizing tokenizers).
   */
  #tokenizeFrom(at: number): boolean {
    const first = this.#reference[at];
    if (first !== undefined && (first & 0xc0) === 0x80) return false;
    const rest = this.#reference.subarray(at);
    const ids = this.#tokenizer.encode(new TextDecoder().decode(rest));
    const tokenAt = new Map<number, number>();
    let position = at;
    for (const id of ids) {
      const bytes = this.#tokenizer.tokenBytes(id);
      if (bytes === undefined || !this.#matches(bytes, position)) return false;
      tokenAt.set(position, id);
      position += bytes.length;
    }
    if (position !== this.#reference.length) return false;
    this.#tokenAt = tokenAt;
    return true;
  }
}
