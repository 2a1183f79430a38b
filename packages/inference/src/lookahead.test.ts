import { describe, expect, it } from 'vitest';
import { lookaheadDraft } from './lookahead';

describe('lookaheadDraft', () => {
  it('guesses the tokens that followed the last three tokens earlier, up to the limit', () => {
    const sequence = [1, 2, 3, 4, 5, 9, 1, 2, 3];
    expect(lookaheadDraft(sequence, 8)).toEqual([4, 5, 9, 1, 2, 3]);
    expect(lookaheadDraft(sequence, 2)).toEqual([4, 5]);
    expect(lookaheadDraft(sequence, 0)).toEqual([]);
  });

  it('follows the latest earlier occurrence', () => {
    expect(lookaheadDraft([1, 2, 3, 7, 1, 2, 3, 8, 1, 2, 3], 3)).toEqual([8, 1, 2]);
  });

  it('falls back to the last two tokens, never to one', () => {
    expect(lookaheadDraft([5, 6, 7, 9, 6, 7], 8)).toEqual([9, 6, 7]);
    expect(lookaheadDraft([4, 1, 5, 1], 8)).toEqual([]);
  });

  it('guesses nothing for sequences too short to repeat', () => {
    expect(lookaheadDraft([], 8)).toEqual([]);
    expect(lookaheadDraft([1], 8)).toEqual([]);
    expect(lookaheadDraft([1, 1], 8)).toEqual([]);
    expect(lookaheadDraft([1, 1, 1], 8)).toEqual([1]);
  });
});
