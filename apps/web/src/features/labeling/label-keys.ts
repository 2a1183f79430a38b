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
  {
    keys: '0–9',
    what: 'score the selected criterion with the value the key names, then select the next criterion (so 5 5 4 scores three criteria in a row; no ↓ between them); on a 1–10 scale 0 is 10; a value no key names, such as 10 on a 0–10 scale, takes a click on its button',
  },
  { keys: '↑ / ↓', what: 'previous / next criterion' },
  { keys: '← / k', what: 'back to an item you labeled' },
  { keys: '→ / j', what: 'forward, towards the item you are on' },
  { keys: 'Enter', what: 'submit (or save the edit)' },
  { keys: 's', what: 'skip this item' },
  { keys: 'f', what: 'flag this item' },
  { keys: 'c', what: 'write a comment (Esc leaves it)' },
  { keys: '?', what: 'this help' },
];

type Scale = Pick<LabelCriterion, 'min' | 'max'>;

/**
 * The value a digit key gives a criterion: the value the key names, when it is on the scale, so
 * the key matches the button it presses (`1` on a 0–1 pitfall is 1, on a 1–5 scale 1). On a scale
 * up to 10 without a 0 (1–10), `0` is 10, the key after 9 on the keyboard. On 0–10 the 10 has no
 * key but its button: a second key press (`1` then `0`) would have to hold back every `1` until it
 * is sure no `0` follows, or rewrite a score after the selection has moved to the next criterion,
 * and a mistyped score is worse than a click.
 */
export function digitValue(scale: Scale, key: string): number | null {
  if (!/^[0-9]$/.test(key)) return null;
  const named = Number(key);
  if (named >= scale.min && named <= scale.max) return named;
  return named === 0 && scale.max === 10 && scale.min > 0 ? 10 : null;
}

/** The key that scores `value` on the scale, or null when only its button does. */
export function keyOfValue(scale: Scale, value: number): string | null {
  for (const key of ['0', '1', '2', '3', '4', '5', '6', '7', '8', '9']) {
    if (digitValue(scale, key) === value) return key;
  }
  return null;
}

/** The points of a scale no key scores, said once under its buttons; null when every point has a key. */
export function unkeyedHint(scale: Scale): string | null {
  const points = Array.from({ length: scale.max - scale.min + 1 }, (_, n) => scale.min + n);
  const unkeyed = points.filter((value) => keyOfValue(scale, value) === null);
  if (unkeyed.length === 0) return null;
  return `${unkeyed.join(', ')}: no key, click ${unkeyed.length === 1 ? 'its button' : 'their buttons'}`;
}

/**
 * The action a key press stands for, or null. A digit scores the selected criterion with the value
 * it names (`digitValue`); a digit off the scale does nothing. After scoring, the selection moves
 * to the next criterion.
 */
export function labelKeyAction(key: string, state: LabelKeyState): LabelKeyAction | null {
  const criterion = state.criteria[state.criterionIndex];
  if (/^[0-9]$/.test(key)) {
    if (criterion === undefined) return null;
    const value = digitValue(criterion, key);
    return value === null ? null : { kind: 'score', criterion: criterion.id, value };
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
