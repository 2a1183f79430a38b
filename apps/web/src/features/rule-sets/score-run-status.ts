import type { inferOutput } from '@trpc/tanstack-react-query';
import { plural } from '../../app/format';
import type { useTRPC } from '../../app/trpc';

/** What `rulesets.scoreRunStatus` says of a job scoring a whole run. */
export type ScoringProgress = inferOutput<ReturnType<typeof useTRPC>['rulesets']['scoreRunStatus']>;

/**
 * The status line of `Score a whole run`. Until the job first reports it counts nothing, not even
 * the run's predictions (walk 52: `walk-tool@v2: scoring 0/0` for 2.5 s): it then says it is
 * starting, on how many predictions when the run's own count is known (`predictions`, a finished
 * run's units: one prediction each), instead of a 0/0 that reads as an empty run.
 */
export function scoreRunStatusText(
  progress: ScoringProgress,
  ruleSetName: string,
  predictions: number | null,
): string {
  const starting = progress.status === 'running' && progress.total === 0;
  const state = starting
    ? predictions === null || predictions === 0
      ? 'starting…'
      : `starting on ${plural(predictions, 'prediction')}…`
    : `${progress.status === 'running' ? 'scoring' : progress.status} ${progress.done}/${progress.total}`;
  const notes = [
    progress.failed > 0 ? `${progress.failed} failed predictions left unscored` : null,
    progress.domain !== null && progress.outsideDomain > 0
      ? `${progress.outsideDomain} scored on items outside ${progress.domain}, the domain ${ruleSetName} is written for (a rule set's domain scopes nothing; a rule's scope.domains leaves items out)`
      : null,
    progress.error,
  ].filter((note) => note !== null);
  return [`${progress.metric}: ${state}`, ...notes].join(' · ');
}
