import type { LabelCriterion } from '@terrarium/labels';

/**
 * Whether a submit should go now or ask first: a label with criteria left unscored is allowed
 * (some do not apply), but a digit key moves on to the next criterion, so `4 ↓ 3 ↓ Enter` skips two
 * without a word. The first submit of such a draft asks, naming them; the same submit again sends.
 * `confirmed` is what the last ask was about (`askKey`), so a changed draft asks again.
 */
export function partialLabelCheck(
  criteria: readonly Pick<LabelCriterion, 'id'>[],
  scores: Readonly<Record<string, number | null>>,
  item: string,
  confirmed: string | null,
): { send: true } | { send: false; askKey: string; message: string } {
  const unscored = criteria
    .filter((criterion) => (scores[criterion.id] ?? null) === null)
    .map((criterion) => criterion.id);
  if (unscored.length === 0) return { send: true };
  const askKey = `${item}\u0000${unscored.join('\u0000')}`;
  if (askKey === confirmed) return { send: true };
  const count = unscored.length === 1 ? '1 criterion' : `${unscored.length} criteria`;
  return {
    send: false,
    askKey,
    message: `${count} not scored (${unscored.join(', ')}): Enter again submits without ${unscored.length === 1 ? 'it' : 'them'}.`,
  };
}
