import { scanTokens } from '../text/tokens';
import { scoringText } from '../text/normalize';
import type { HistoryTurn } from '../types';

/**
 * What the history has shown, as hashed tokens and token bigrams (the same scanner as the observation),
 * so deciding whether a span was seen before costs O(span) and never a scan of the history.
 * Built incrementally: add one turn at a time while walking a trajectory.
 */
export class HistoryIndex {
  private readonly tokens = new Set<string>();
  private readonly bigrams = new Set<string>();

  add(text: string): this {
    let previous: string | undefined;
    for (const token of scanTokens(scoringText(text))) {
      this.tokens.add(token.text);
      if (previous !== undefined) this.bigrams.add(bigramKey(previous, token.text));
      previous = token.text;
    }
    return this;
  }

  addTurn(turn: HistoryTurn): this {
    return this.add(turn.action).add(turn.observation);
  }

  has(token: string): boolean {
    return this.tokens.has(token);
  }

  hasBigram(first: string, second: string): boolean {
    return this.bigrams.has(bigramKey(first, second));
  }

  /** True when every token and every adjacent pair of `sequence` was seen (a contiguous echo, approx.). */
  hasSequence(sequence: readonly string[]): boolean {
    if (sequence.length === 0) return false;
    for (let i = 0; i < sequence.length; i++) {
      const token = sequence[i] ?? '';
      if (!this.tokens.has(token)) return false;
      if (i > 0 && !this.bigrams.has(bigramKey(sequence[i - 1] ?? '', token))) return false;
    }
    return true;
  }

  get size(): number {
    return this.tokens.size;
  }
}

function bigramKey(first: string, second: string): string {
  return `${first}\u0000${second}`;
}

/** The index of earlier turns plus the current action (whose echo is deterministic too). */
export function indexHistory(history: readonly HistoryTurn[], currentAction = ''): HistoryIndex {
  const index = new HistoryIndex();
  for (const turn of history) index.addTurn(turn);
  return index.add(currentAction);
}
