import { diffLines, diffWordsWithSpace } from 'diff';

export type ChangeType = 'equal' | 'added' | 'removed';

export interface DiffSegment {
  text: string;
  change: ChangeType;
}

/** One line of a unified diff: real lines are `removed`, predicted lines `added`. */
export interface DiffLine {
  change: ChangeType;
  segments: DiffSegment[];
}

export type TextDiff = { ok: true; lines: DiffLine[] } | { ok: false; reason: string };

/** Beyond this many edits the diff is abandoned: it would be unreadable and slow to compute. */
export const MAX_EDIT_LENGTH = 2000;
/** Word highlights are computed only for a changed block this size or smaller (lines per side). */
const MAX_WORD_DIFF_LINES = 50;

function splitLines(text: string): string[] {
  const lines = text.split('\n');
  // A trailing newline ends the last line; it does not start an empty one.
  if (lines.length > 1 && lines[lines.length - 1] === '') lines.pop();
  return lines;
}

function wholeLines(lines: string[], change: ChangeType): DiffLine[] {
  return lines.map((line) => ({ change, segments: [{ text: line, change }] }));
}

/** Segments of one side of a word diff, split into lines. */
function sideLines(segments: DiffSegment[], change: 'added' | 'removed'): DiffLine[] {
  const lines: DiffLine[] = [{ change, segments: [] }];
  for (const segment of segments) {
    segment.text.split('\n').forEach((piece, position) => {
      if (position > 0) lines.push({ change, segments: [] });
      const line = lines[lines.length - 1];
      if (piece !== '' && line) line.segments.push({ text: piece, change: segment.change });
    });
  }
  return lines;
}

/** A removed block followed by an added one: the words that differ are highlighted in each. */
function changedBlock(removed: string[], added: string[]): DiffLine[] {
  if (removed.length > MAX_WORD_DIFF_LINES || added.length > MAX_WORD_DIFF_LINES) {
    return [...wholeLines(removed, 'removed'), ...wholeLines(added, 'added')];
  }
  const words = diffWordsWithSpace(removed.join('\n'), added.join('\n'));
  const realSide: DiffSegment[] = [];
  const predictedSide: DiffSegment[] = [];
  for (const part of words) {
    if (part.removed) realSide.push({ text: part.value, change: 'removed' });
    else if (part.added) predictedSide.push({ text: part.value, change: 'added' });
    else {
      realSide.push({ text: part.value, change: 'equal' });
      predictedSide.push({ text: part.value, change: 'equal' });
    }
  }
  return [...sideLines(realSide, 'removed'), ...sideLines(predictedSide, 'added')];
}

/**
 * A line diff of the real observation against a predicted one, with word-level highlights inside
 * changed lines. Returns `ok: false` instead of a diff too large to read.
 */
export function diffText(real: string, predicted: string): TextDiff {
  const parts = diffLines(real, predicted, { maxEditLength: MAX_EDIT_LENGTH });
  if (parts === undefined) {
    return { ok: false, reason: `more than ${MAX_EDIT_LENGTH} lines differ` };
  }
  const lines: DiffLine[] = [];
  let pendingRemoved: string[] = [];
  const flushRemoved = () => {
    lines.push(...wholeLines(pendingRemoved, 'removed'));
    pendingRemoved = [];
  };
  for (const part of parts) {
    const partLines = splitLines(part.value);
    if (part.removed) {
      pendingRemoved.push(...partLines);
    } else if (part.added) {
      if (pendingRemoved.length > 0) {
        lines.push(...changedBlock(pendingRemoved, partLines));
        pendingRemoved = [];
      } else {
        lines.push(...wholeLines(partLines, 'added'));
      }
    } else {
      flushRemoved();
      lines.push(...wholeLines(partLines, 'equal'));
    }
  }
  flushRemoved();
  return { ok: true, lines };
}
