import type { Outcome } from '@terrarium/schema';

export { formatCount, plural } from '@terrarium/schema';

export type OutcomeLabel = 'success' | 'failure' | 'unknown';

export function outcomeLabel(outcome: Outcome): OutcomeLabel {
  if (outcome.success === true) return 'success';
  if (outcome.success === false) return 'failure';
  return 'unknown';
}

export function formatReward(reward: number | null): string {
  if (reward === null) return '—';
  // At most three decimals, and none the data does not have: 0.67 stays 0.67, not 0.670.
  return String(Number(reward.toFixed(3)));
}

/**
 * A score as every page shows it: 0-100 with one decimal (`75.0`), from a value on the scale the
 * metrics compute (0-1). Aggregates the server already scaled use `formatScore100`.
 */
export function formatScore(value: number | null | undefined): string {
  return formatScore100(typeof value === 'number' ? value * 100 : value);
}

/** A 0-1 share as a percentage with one decimal, as charts plot it (0.9375 → 93.8). */
export function percentOf(share: number): number {
  return Math.round(share * 1000) / 10;
}

/** A 0-1 share as text (0.9375 → `93.8%`): tables and charts of shares say the same number. */
export function formatPercent(share: number): string {
  return `${percentOf(share).toFixed(1)}%`;
}

/** A score already on the 0-100 scale (the leaderboard's cells and intervals): one decimal. */
export function formatScore100(value: number | null | undefined): string {
  return typeof value === 'number' ? value.toFixed(1) : '—';
}
/**
 * A signed difference of 0-100 scores, in points: `+3.2`, `−1.0` (a real minus sign), `0.0`; with
 * more `decimals` where one would hide a sign (an interval's bound near 0).
 */
export function formatDelta(delta: number | null, decimals = 1): string {
  if (delta === null) return '—';
  const rounded = Number(delta.toFixed(decimals));
  if (rounded === 0) return (0).toFixed(decimals);
  return `${rounded > 0 ? '+' : '−'}${Math.abs(rounded).toFixed(decimals)}`;
}

/**
 * A stored time (ISO 8601, UTC) as every page shows one, `2026-12-07 12:41 UTC`, to the minute or
 * the second: the zone is said because the server stores UTC and the reader's clock may not be.
 */
export function formatUtc(iso: string, to: 'minute' | 'second' = 'minute'): string {
  return `${iso.slice(0, to === 'minute' ? 16 : 19).replace('T', ' ')} UTC`;
}
