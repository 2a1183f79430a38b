import type { BreakdownEntry } from '@terrarium/rubrics';
import { formatScore } from '../../app/format';

/** Pitfall weights are negative; a true minus sign reads as one. */
function signed(value: number): string {
  return value < 0 ? `−${Math.abs(value)}` : String(value);
}

/**
 * One entry of a breakdown, e.g. `content: 81.2 (weight 1)`, or `invented-outcome: no value
 * (weight −0.9)` for an entry that does not count for the item (with the reason when it has one).
 */
function breakdownEntryText(entry: BreakdownEntry): string {
  const value = entry.score === null ? 'no value' : formatScore(entry.score);
  const why = entry.detail === undefined ? '' : `; ${entry.detail}`;
  return `${entry.id}: ${value} (weight ${signed(entry.weight)}${why})`;
}

/**
 * An item's breakdown as one line. Criteria without a value (a preview and `Score a whole run`
 * call no judge, so most have none) are named together at the end instead of one "no value"
 * entry each.
 */
export function breakdownText(breakdown: readonly BreakdownEntry[]): string {
  const unscoredCriteria = breakdown.filter(
    (entry) => entry.kind === 'criterion' && entry.score === null && entry.detail === undefined,
  );
  const shown = breakdown.filter((entry) => !unscoredCriteria.includes(entry));
  const parts = shown.map(breakdownEntryText);
  if (unscoredCriteria.length > 0) {
    parts.push(`unscored criteria: ${unscoredCriteria.map((entry) => entry.id).join(', ')}`);
  }
  return parts.join(' · ');
}

/**
 * A rule set's breakdown of one item's score, as every page shows it: the Rule sets preview (of
 * a draft) and a bench item (of a saved version's stored score) read the same line.
 */
export function Breakdown({ breakdown }: { breakdown: readonly BreakdownEntry[] }) {
  // No type size of its own: the table cell or list that holds it sets it for its place.
  return <span className="mono">{breakdownText(breakdown)}</span>;
}
