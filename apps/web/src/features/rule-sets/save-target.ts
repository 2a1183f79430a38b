/** A rule set as the list names it: its latest saved version, or null for a built-in default. */
export interface ListedRuleSet {
  name: string;
  latestVersion: number | null;
}

export interface SaveTarget {
  /** The Save button's text: the rule set and version a save makes. */
  label: string;
  /** Said when the draft's `name` is not the rule set chosen in the header; null otherwise. */
  renamed: string | null;
}

/**
 * Where a save goes: the draft's own `name` (null while the draft is not valid), which a user may
 * have changed away from the rule set chosen in the header, so that saving starts another one.
 */
export function saveTarget(
  listed: readonly ListedRuleSet[],
  draftName: string | null,
  chosen: string | null,
): SaveTarget {
  if (draftName === null) return { label: 'Save as new version', renamed: null };
  const stored = listed.find((entry) => entry.name === draftName);
  const label = `Save as ${draftName} v${(stored?.latestVersion ?? 0) + 1}`;
  if (chosen === null || draftName === chosen) return { label, renamed: null };
  const what =
    stored === undefined
      ? 'saving starts a new rule set'
      : stored.latestVersion === null
        ? 'saving makes its first version'
        : 'saving adds a version to it';
  return { label, renamed: `The draft is named ${draftName}: ${what}; ${chosen} stays as it is.` };
}
