import { describe, expect, it } from 'vitest';
import { formatDelta, formatReward, formatScore, formatScore100, formatUtc } from './format';

describe('scores', () => {
  it('shows every score on 0-100 with one decimal, whatever scale it arrives on', () => {
    // A metric's value (0-1), as Compare, the Models page and labeling get it.
    expect(formatScore(1)).toBe('100.0');
    expect(formatScore(0.75)).toBe('75.0');
    expect(formatScore(0.0534)).toBe('5.3');
    expect(formatScore(0)).toBe('0.0');
    expect(formatScore(null)).toBe('—');
    expect(formatScore(undefined)).toBe('—');
    // An aggregate the server already scaled (leaderboard cells and intervals).
    expect(formatScore100(100)).toBe('100.0');
    expect(formatScore100(33.333)).toBe('33.3');
    expect(formatScore100(null)).toBe('—');
  });

  it('signs deltas in points with a real minus and calls a rounded zero 0.0', () => {
    expect(formatDelta(3.24)).toBe('+3.2');
    expect(formatDelta(-1)).toBe('−1.0');
    expect(formatDelta(-0.04)).toBe('0.0');
    expect(formatDelta(null)).toBe('—');
  });
});

describe('rewards', () => {
  it('shows a recorded reward with the decimals it has, three at most', () => {
    // walk 40: InterCode's 0.67 read "0.670".
    expect([0.67, 0.39, 1, 0, 0.123456, -0.5, null].map(formatReward)).toEqual([
      '0.67',
      '0.39',
      '1',
      '0',
      '0.123',
      '-0.5',
      '—',
    ]);
  });
});

describe('times', () => {
  it('shows a stored time with its zone, to the minute or the second', () => {
    expect(formatUtc('2026-12-07T12:41:24.512Z')).toBe('2026-12-07 12:41 UTC');
    expect(formatUtc('2026-12-07T12:41:24.512Z', 'second')).toBe('2026-12-07 12:41:24 UTC');
  });
});
