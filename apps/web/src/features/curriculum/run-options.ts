import type { inferOutput } from '@trpc/tanstack-react-query';
import type { useTRPC } from '../../app/trpc';

/** A curriculum run as `curriculum.list` and `curriculum.get` both give it. */
export type CurriculumRunSummary = inferOutput<
  ReturnType<typeof useTRPC>['curriculum']['list']
>[number];

/** The Run select's entry: `#1 intercode-bash, scripted vs retrieval: running, 2/4`. */
export function runOptionLabel(run: CurriculumRunSummary): string {
  const sim = run.settings?.sim ? ` vs ${run.settings.sim}` : '';
  return `#${run.id} ${run.dataset}, ${run.settings?.policy ?? '?'}${sim}: ${run.status}, ${run.generationsDone}/${run.generationsTotal}`;
}

/**
 * The runs the Run select lists, the shown run as the panel below reads it. The list is read
 * every 2 s, the shown run every 0.4 s while it plays: each on its own, the select said
 * `running, 2/4` for two seconds under a panel that said `done, generation 4 of 4` (walk 52).
 * The shown run's own query is the fresher, so both read it.
 */
export function runsAsShown(
  listed: readonly CurriculumRunSummary[],
  shown: CurriculumRunSummary | null,
): CurriculumRunSummary[] {
  return listed.map((run) => (shown !== null && run.id === shown.id ? shown : run));
}
