import { z } from 'zod';

/**
 * One label line: the shape `terrarium labels agreement` reads (`item`, `labeler`, `criterion`,
 * `value`), plus what a label carries besides its scores. One line per (item, labeler, criterion).
 */
export const LabelLine = z.object({
  item: z.string().min(1),
  labeler: z.string().min(1),
  criterion: z.string().min(1),
  value: z.number().nullable(),
  comment: z.string().optional(),
  flagged: z.boolean().optional(),
  /** Provenance on export; ignored on import (imported labels are stamped when they land). */
  at: z.string().optional(),
});
export type LabelLine = z.infer<typeof LabelLine>;

/** What export reads of a stored label. */
export interface ExportableLabel {
  itemId: string;
  labelerName: string;
  scores: Record<string, number | null>;
  comment: string;
  flagged: boolean;
  updatedAt: string;
}

export function labelsToJsonl(labels: readonly ExportableLabel[]): string {
  const lines: string[] = [];
  for (const label of labels) {
    for (const [criterion, value] of Object.entries(label.scores)) {
      const line: LabelLine = {
        item: label.itemId,
        labeler: label.labelerName,
        criterion,
        value,
        comment: label.comment,
        flagged: label.flagged,
        at: label.updatedAt,
      };
      lines.push(JSON.stringify(line));
    }
  }
  return lines.length === 0 ? '' : `${lines.join('\n')}\n`;
}

export interface ParsedLabel {
  itemId: string;
  labelerName: string;
  scores: Record<string, number | null>;
  comment: string;
  flagged: boolean;
}

export interface LabelLineError {
  /** 1-based. */
  line: number;
  reason: string;
}

/** Groups lines by (item, labeler) into labels; bad lines are reported, the rest still import. */
export function parseLabelsJsonl(text: string): {
  labels: ParsedLabel[];
  errors: LabelLineError[];
} {
  const byKey = new Map<string, ParsedLabel>();
  const errors: LabelLineError[] = [];
  text.split(/\r?\n/).forEach((raw, index) => {
    if (raw.trim() === '') return;
    let json: unknown;
    try {
      json = JSON.parse(raw);
    } catch {
      errors.push({ line: index + 1, reason: 'not JSON' });
      return;
    }
    const parsed = LabelLine.safeParse(json);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      const field = issue?.path.map(String).join('.') ?? '';
      errors.push({
        line: index + 1,
        reason: `${field || 'line'}: ${issue?.message ?? 'invalid'}`,
      });
      return;
    }
    const line = parsed.data;
    const key = JSON.stringify([line.item, line.labeler]);
    const label = byKey.get(key) ?? {
      itemId: line.item,
      labelerName: line.labeler,
      scores: {},
      comment: '',
      flagged: false,
    };
    label.scores[line.criterion] = line.value;
    if (line.comment !== undefined && line.comment !== '') label.comment = line.comment;
    if (line.flagged === true) label.flagged = true;
    byKey.set(key, label);
  });
  return { labels: [...byKey.values()], errors };
}
