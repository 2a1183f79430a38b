/**
 * What deleting a dataset does to the curriculum runs seeded from it, said by the CLI's warning
 * and the page's confirmation alike: a run rebuilds its tasks from the dataset's data, so it
 * cannot export them until the dataset is imported again under its name (walk 43: neither said).
 */
export function seededRunsNote(runIds: readonly string[]): string {
  if (runIds.length === 0) return '';
  const runs = runIds.map((id) => `#${id}`).join(', ');
  return runIds.length === 1
    ? `curriculum run ${runs} was seeded from it: it cannot export its tasks until the dataset is imported again under this name`
    : `curriculum runs ${runs} were seeded from it: they cannot export their tasks until the dataset is imported again under this name`;
}
