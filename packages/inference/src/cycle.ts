/**
 * Watches an output for the failure a small model falls into when it loses its place: writing the
 * same span of tokens back to back until the context ends (`696969…`, one record again and again,
 * a line of blanks). On the bundled model's held-out answers 27 of 568 ran that way to the end of
 * the context, each over 54 to 1,278 tokens, while in the 2,510 real observations of the training
 * data (tau2, tau-bench, SWE-agent; every one tokenized) no span repeated back to back three times
 * or more covers more than 15 tokens. So a span that has (three times or more) covered 48 tokens
 * is a loop, and decoding ends there.
 */

/** The longest repeated span looked for, in tokens (the looping records seen ran 30-78 tokens). */
export const CYCLE_MAX_PERIOD = 128;
/** Tokens the back-to-back copies must cover together before the output counts as looping. */
export const CYCLE_MIN_SPAN = 48;
/** Copies of the span, back to back, at least. */
export const CYCLE_MIN_COPIES = 3;

export interface Cycle {
  /** The repeated span's length in tokens. */
  period: number;
  /** How many tokens, ending with the latest, repeat it back to back (its first copy included). */
  span: number;
}

/**
 * Fed the output one token at a time; says when its latest tokens are at least three back-to-back
 * copies of one span covering at least 48 tokens. Constant work per token (one counter per span
 * length), so it runs on every token of every decode.
 */
export class CycleWatch {
  private readonly tokens: number[] = [];
  /** Per period p (index p), how many latest tokens equal the token p before them. */
  private readonly matching = new Int32Array(CYCLE_MAX_PERIOD + 1);

  /** Adds the next output token; the cycle the output has entered, or null. */
  push(token: number): Cycle | null {
    const tokens = this.tokens;
    tokens.push(token);
    const last = tokens.length - 1;
    let found: Cycle | null = null;
    for (let period = 1; period <= CYCLE_MAX_PERIOD && period <= last; period++) {
      const run = tokens[last - period] === token ? (this.matching[period] ?? 0) + 1 : 0;
      this.matching[period] = run;
      const span = run + period;
      if (found === null && span >= CYCLE_MIN_SPAN && span >= CYCLE_MIN_COPIES * period) {
        found = { period, span };
      }
    }
    return found;
  }
}
