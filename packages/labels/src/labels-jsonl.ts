import { z } from 'zod';

/**
 * One label line: the shape `terrarium labels agreement` reads (`item`, `labeler`, `criterion`,
 * `value`), plus what a label carries besides its scores. One line per (item, labeler, criterion).
 * A line with `adjudicated: true` is a researcher's settled value for the item and criterion (the
 * labeler field names the researcher); agreement leaves those lines out.
 */
export const LabelLine = z.object({
  item: z.string().min(1),
  labeler: z.string().min(1),
  criterion: z.string().min(1),
  value: z.number().nullable(),
  comment: z.string().optional(),
  flagged: z.boolean().optional(),
  adjudicated: z.boolean().optional(),
  /** Provenance on export; ignored on import (imported labels are stamped when they land). */
  at: z.string().optional(),
  /** Where the item comes from, on export (a bench item id is a content hash): ignored on import. */
  task: z.string().optional(),
  dataset: z.string().nullable().optional(),
  trajectory: z.string().nullable().optional(),
  /** 0-based, as the bench item's origin says; null for items imported from a bench file. */
  stepIndex: z.number().int().nullable().optional(),
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

/** What export reads of a stored adjudication (the latest per item and criterion). */
export interface ExportableAdjudication {
  itemId: string;
  criterion: string;
  value: number | null;
  comment: string;
  researcherName: string;
  createdAt: string;
}

/** Where a label's item comes from: its bench task and, for items built from a dataset, the step. */
export interface ItemProvenance {
  task: string;
  dataset: string | null;
  trajectory: string | null;
  stepIndex: number | null;
}

export function labelsToJsonl(
  labels: readonly ExportableLabel[],
  extra: {
    adjudications?: readonly ExportableAdjudication[];
    provenance?: (itemId: string) => ItemProvenance | undefined;
  } = {},
): string {
  const lines: string[] = [];
  const origin = (itemId: string) => extra.provenance?.(itemId) ?? {};
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
        ...origin(label.itemId),
      };
      lines.push(JSON.stringify(line));
    }
  }
  for (const adjudication of extra.adjudications ?? []) {
    const line: LabelLine = {
      item: adjudication.itemId,
      labeler: adjudication.researcherName,
      criterion: adjudication.criterion,
      value: adjudication.value,
      comment: adjudication.comment,
      adjudicated: true,
      at: adjudication.createdAt,
      ...origin(adjudication.itemId),
    };
    lines.push(JSON.stringify(line));
  }
  return lines.length === 0 ? '' : `${lines.join('\n')}\n`;
}

export interface ParsedLabel {
  itemId: string;
  labelerName: string;
  scores: Record<string, number | null>;
  comment: string;
  flagged: boolean;
  /** The 1-based line each criterion's value came from, for errors found after parsing. */
  lines: Record<string, number>;
}

export interface ParsedAdjudication {
  itemId: string;
  criterion: string;
  value: number | null;
  comment: string;
  researcherName: string;
  /** 1-based. */
  line: number;
}

export interface LabelLineError {
  /** 1-based. */
  line: number;
  reason: string;
}

/**
 * Groups lines by (item, labeler) into labels, and keeps adjudicated lines apart; bad lines are
 * reported, the rest still import.
 */
export function parseLabelsJsonl(text: string): {
  labels: ParsedLabel[];
  adjudications: ParsedAdjudication[];
  errors: LabelLineError[];
} {
  const byKey = new Map<string, ParsedLabel>();
  const adjudications: ParsedAdjudication[] = [];
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
    if (line.adjudicated === true) {
      adjudications.push({
        itemId: line.item,
        criterion: line.criterion,
        value: line.value,
        comment: line.comment ?? '',
        researcherName: line.labeler,
        line: index + 1,
      });
      return;
    }
    const key = JSON.stringify([line.item, line.labeler]);
    const label = byKey.get(key) ?? {
      itemId: line.item,
      labelerName: line.labeler,
      scores: {},
      comment: '',
      flagged: false,
      lines: {},
    };
    label.scores[line.criterion] = line.value;
    label.lines[line.criterion] = index + 1;
    if (line.comment !== undefined && line.comment !== '') label.comment = line.comment;
    if (line.flagged === true) label.flagged = true;
    byKey.set(key, label);
  });
  return { labels: [...byKey.values()], adjudications, errors };
}
