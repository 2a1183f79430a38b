import type { RuleSet } from './rule-set';

export interface LineChange {
  kind: 'same' | 'added' | 'removed';
  text: string;
  /** 1-based line in the old document (same, removed) or the new one (added). */
  line: number;
}

/** Longest-common-subsequence cells above which the diff falls back to "all removed, all added". */
const MAX_DIFF_CELLS = 4_000_000;

/** Line diff of two documents (LCS), for the side-by-side view of two versions. */
export function diffLines(before: string, after: string): LineChange[] {
  const a = before.split('\n');
  const b = after.split('\n');
  if (a.length * b.length > MAX_DIFF_CELLS)
    return [
      ...a.map((text, i): LineChange => ({ kind: 'removed', text, line: i + 1 })),
      ...b.map((text, i): LineChange => ({ kind: 'added', text, line: i + 1 })),
    ];
  // lengths[i][j]: LCS of a[i..] and b[j..], filled from the end.
  const lengths = Array.from({ length: a.length + 1 }, () => new Uint32Array(b.length + 1));
  for (let i = a.length - 1; i >= 0; i--)
    for (let j = b.length - 1; j >= 0; j--) {
      const row = lengths[i];
      if (row === undefined) continue;
      row[j] =
        a[i] === b[j]
          ? (lengths[i + 1]?.[j + 1] ?? 0) + 1
          : Math.max(lengths[i + 1]?.[j] ?? 0, row[j + 1] ?? 0);
    }
  const changes: LineChange[] = [];
  let i = 0;
  let j = 0;
  while (i < a.length || j < b.length) {
    if (i < a.length && j < b.length && a[i] === b[j]) {
      changes.push({ kind: 'same', text: a[i] ?? '', line: i + 1 });
      i++;
      j++;
    } else if (
      j < b.length &&
      (i >= a.length || (lengths[i]?.[j + 1] ?? 0) >= (lengths[i + 1]?.[j] ?? 0))
    ) {
      changes.push({ kind: 'added', text: b[j] ?? '', line: j + 1 });
      j++;
    } else {
      changes.push({ kind: 'removed', text: a[i] ?? '', line: i + 1 });
      i++;
    }
  }
  return changes;
}

export interface EntryChange {
  kind: 'rule' | 'criterion' | 'combine';
  id: string;
  change: 'added' | 'removed' | 'changed';
}

/** Which rules and criteria two versions add, remove or change (by id), and whether combine moved. */
export function diffRuleSets(before: RuleSet, after: RuleSet): EntryChange[] {
  const changes: EntryChange[] = [];
  const compare = (
    kind: 'rule' | 'criterion',
    old: readonly { id: string }[],
    next: readonly { id: string }[],
  ) => {
    const oldById = new Map(old.map((entry) => [entry.id, JSON.stringify(entry)]));
    const nextById = new Map(next.map((entry) => [entry.id, JSON.stringify(entry)]));
    for (const [id, text] of oldById) {
      const other = nextById.get(id);
      if (other === undefined) changes.push({ kind, id, change: 'removed' });
      else if (other !== text) changes.push({ kind, id, change: 'changed' });
    }
    for (const id of nextById.keys())
      if (!oldById.has(id)) changes.push({ kind, id, change: 'added' });
  };
  compare('rule', before.rules, after.rules);
  compare('criterion', before.criteria, after.criteria);
  if (JSON.stringify(before.combine) !== JSON.stringify(after.combine))
    changes.push({ kind: 'combine', id: 'combine', change: 'changed' });
  return changes;
}
