/** What `curriculum.seeds` says of a dataset. */
export interface SeedCount {
  tasks: number;
  rejected: number;
  commonestReason: string | null;
}

/** What a dataset gives a curriculum: its seed tasks, and the commonest reason others were refused. */
export function seedSummary(dataset: string, seeds: SeedCount): string {
  const tasks = `${seeds.tasks.toLocaleString('en-US')} seed task${seeds.tasks === 1 ? '' : 's'}`;
  const why = seeds.commonestReason === null ? '' : `; most often: ${seeds.commonestReason}`;
  const refused =
    seeds.rejected === 0
      ? ''
      : ` (${seeds.rejected.toLocaleString('en-US')} trajectories refused${why})`;
  return `${dataset}: ${tasks}${refused}${seeds.tasks === 0 ? '. Pick another dataset.' : ''}`;
}
