// Counts in words, alike in the web app, the CLI and the formats' reports.

const countFormat = new Intl.NumberFormat('en-US');

/** `1,234`: a count with thousands separators. */
export function formatCount(value: number): string {
  return countFormat.format(value);
}

/** `1 trajectory`, `2 trajectories`: the count and its noun in the matching number. */
export function plural(count: number, singular: string, pluralForm = `${singular}s`): string {
  return `${formatCount(count)} ${count === 1 ? singular : pluralForm}`;
}
