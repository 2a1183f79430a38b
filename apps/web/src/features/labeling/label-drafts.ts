import type { LabelDraft } from './criteria-form';

// A label half entered survives a reload or a closed tab: the draft is kept in this browser until
// it is submitted. Keyed by who labels (two accounts may share a browser), the queue and the item
// shown (the leased item, or one of the labeler's own labels under review).
const PREFIX = 'terrarium.label-draft';

export interface DraftPlace {
  labeler: string;
  queueId: string;
  /** `lease:ORDINAL` or `review:ORDINAL`. */
  item: string;
}

export function draftStorageKey(place: DraftPlace): string {
  return `${PREFIX}:${place.labeler}:${place.queueId}:${place.item}`;
}

function isEmpty(draft: LabelDraft): boolean {
  return (
    Object.values(draft.scores).every((value) => value === null) &&
    draft.comment === '' &&
    !draft.flagged
  );
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** What a stored text holds, if it is a draft (anything else, e.g. an older layout, is ignored). */
export function parseDraft(text: string | null): LabelDraft | null {
  if (text === null) return null;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return null;
  }
  if (!isRecord(value) || !isRecord(value['scores'])) return null;
  const { comment, flagged } = value;
  if (typeof comment !== 'string' || typeof flagged !== 'boolean') return null;
  const scores: Record<string, number | null> = {};
  for (const [criterion, score] of Object.entries(value['scores'])) {
    if (score !== null && (typeof score !== 'number' || !Number.isFinite(score))) return null;
    scores[criterion] = score;
  }
  return { scores, comment, flagged };
}

export function loadDraft(storage: Pick<Storage, 'getItem'>, key: string): LabelDraft | null {
  return parseDraft(storage.getItem(key));
}

/** Keeps the draft; an empty one leaves nothing behind. */
export function saveDraft(
  storage: Pick<Storage, 'setItem' | 'removeItem'>,
  key: string,
  draft: LabelDraft,
): void {
  try {
    if (isEmpty(draft)) storage.removeItem(key);
    else storage.setItem(key, JSON.stringify(draft));
  } catch {
    // Storage full or refused (private mode): the draft still lives in the page.
  }
}

export function forgetDraft(storage: Pick<Storage, 'removeItem'>, key: string): void {
  storage.removeItem(key);
}
