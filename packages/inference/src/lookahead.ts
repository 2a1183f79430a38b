/**
 * Guesses for greedy decoding taken from the text so far ("prompt lookup"): a world model mostly
 * copies, a neighbor's recorded answer or a record the trajectory showed, so the tokens that
 * followed the last earlier occurrence of what was just written are often the ones it writes next.
 * The decoder checks all of them in one model run and keeps those greedy decoding would pick.
 */

/** The longest ending looked up first; shorter endings are tried when it occurs nowhere earlier. */
const LONGEST_ENDING = 3;
/** A single repeated token says too little: guesses follow an ending of at least two tokens. */
const SHORTEST_ENDING = 2;

/**
 * At most `limit` tokens that followed the latest earlier occurrence of the sequence's last
 * tokens (its last 3, else its last 2), or none when that ending occurs nowhere earlier.
 */
export function lookaheadDraft(sequence: readonly number[], limit: number): number[] {
  const length = sequence.length;
  if (limit <= 0) return [];
  for (let n = Math.min(LONGEST_ENDING, length - 1); n >= SHORTEST_ENDING; n--) {
    // The ending occupies [length - n, length); an earlier occurrence starts at most one before it.
    for (let at = length - n - 1; at >= 0; at--) {
      if (endsAt(sequence, at, n)) {
        return sequence.slice(at + n, Math.min(at + n + limit, length));
      }
    }
  }
  return [];
}

/** Whether sequence[at, at + n) equals the sequence's last n tokens. */
function endsAt(sequence: readonly number[], at: number, n: number): boolean {
  const tail = sequence.length - n;
  for (let i = 0; i < n; i++) if (sequence[at + i] !== sequence[tail + i]) return false;
  return true;
}
