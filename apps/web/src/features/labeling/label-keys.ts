import type { LabelCriterion } from '@terrarium/labels';

/** What a key does on the labeling page. */
export type LabelKeyAction =
  | { kind: 'score'; criterion: string; value: number }
  | { kind: 'criterion'; index: number }
  | { kind: 'submit' }
  | { kind: 'skip' }
  | { kind: 'flag' }
  | { kind: 'comment' }
  | { kind: 'back' }
  | { kind: 'forward' }
  | { kind: 'help' }
  | { kind: 'close' };

export interface LabelKeyState {
  criteria: readonly LabelCriterion[];
  /** The criterion ↑/↓ and the digit keys act on. */
  criterionIndex: number;
}

/** The keys, for the `?` overlay (one place, so the help never drifts from the handler). */
export const LABEL_KEYS: readonly { keys: string; what: string }[] = [
  { keys: '1–9', what: 'score the selected criterion (the n-th point of its scale)' },
  { keys: '↑ / ↓', what: 'previous / next criterion' },
  { keys: '← / k', what: 'back to an item you labeled' },
  { keys: '→ / j', what: 'forward, towards the item you are on' },
  { keys: 'Enter', what: 'submit (or save the edit)' },
  { keys: 's', what: 'skip this item' },
  { keys: 'f', what: 'flag this item' },
  { keys: 'c', what: 'write a comment (Esc leaves it)' },
  { keys: '?', what: 'this help' },
];

/**
 * The action a key press stands for, or null. A digit picks the n-th point of the scale (1 → min),
 * so a 0–1 criterion takes 1 and 2 and a 1–5 criterion takes the digit it shows; a digit past
 * the scale does nothing. After scoring, the selection moves to the next criterion.
 */
export function labelKeyAction(key: string, state: LabelKeyState): LabelKeyAction | null {
  const criterion = state.criteria[state.criterionIndex];
  if (/^[1-9]$/.test(key)) {
    if (criterion === undefined) return null;
    const value = criterion.min + Number(key) - 1;
    return value > criterion.max ? null : { kind: 'score', criterion: criterion.id, value };
  }
  const last = Math.max(0, state.criteria.length - 1);
  switch (key) {
    case 'ArrowUp':
      return { kind: 'criterion', index: Math.max(0, state.criterionIndex - 1) };
    case 'ArrowDown':
      return { kind: 'criterion', index: Math.min(last, state.criterionIndex + 1) };
    case 'ArrowLeft':
    case 'k':
      return { kind: 'back' };
    case 'ArrowRight':
    case 'j':
      return { kind: 'forward' };
    case 'Enter':
      return { kind: 'submit' };
    case 's':
      return { kind: 'skip' };
    case 'f':
      return { kind: 'flag' };
    case 'c':
      return { kind: 'comment' };
    case '?':
      return { kind: 'help' };
    case 'Escape':
      return { kind: 'close' };
    default:
      return null;
  }
}

/** Where the selection goes after a score: the next criterion, or stay on the last. */
export function nextCriterionIndex(state: LabelKeyState): number {
  return Math.min(state.criteria.length - 1, state.criterionIndex + 1);
}
