import { useMutation } from '@tanstack/react-query';
import { addUnitUsage, NO_USAGE, usageText, type UnitUsage } from '@terrarium/schema';
import { formatScore100 } from '../../app/format';
import { useTRPC } from '../../app/trpc';
import { ObservationView } from '../observations/observation-view';

/**
 * Predicts one bench item again through the bench run's own code path (its corpus, its
 * leave-one-out, its scoring), so the answer matches the drill-down's stored prediction. The
 * Compare table below it simulates the whole trajectory against its dataset, a different corpus.
 */
export function ItemRerun({
  runId,
  itemId,
  sim,
  runScore,
}: {
  runId: string;
  itemId: string;
  sim: string;
  /** The run's stored content score, when the caller has it (the drill-down). */
  runScore?: number | null | undefined;
}) {
  const trpc = useTRPC();
  const rerun = useMutation(trpc.bench.recomputeItem.mutationOptions());
  const result = rerun.data;
  const stored = runScore ?? result?.stored?.scores['rule:content'];
  return (
    <section className="item-rerun" aria-label="Bench item" data-item={itemId}>
      <button
        type="button"
        className="button"
        disabled={rerun.isPending}
        title="Predict this bench item again exactly as the bench run did"
        onClick={() => rerun.mutate({ runId, itemId, sim })}
      >
        {rerun.isPending ? 'Re-running…' : 'Re-run in bench'}
      </button>
      {rerun.error && <span className="status-error">Re-run: {rerun.error.message}</span>}
      {result !== undefined && (
        <div data-testid="item-rerun">
          <p className="muted" data-testid="item-rerun-score">
            content {formatScore100(result.recomputed.scores['rule:content'])} (run:{' '}
            {formatScore100(stored)})
          </p>
          {'judge:overall' in result.recomputed.scores && (
            <p className="muted" data-testid="item-rerun-judge">
              {judgeVerdictText(
                result.recomputed.scores['judge:overall'] ?? null,
                result.stored?.scores['judge:overall'] ?? null,
              )}
            </p>
          )}
          {spentOn(result.recomputed) && (
            <p className="muted" data-testid="item-rerun-usage">
              This re-run: {rerunUsageText(result.recomputed)} (not added to the run’s cost)
            </p>
          )}
          <div data-testid="item-rerun-observation">
            <ObservationView observation={result.recomputed.predicted} />
          </div>
        </div>
      )}
    </section>
  );
}

interface RerunUsage {
  usage: UnitUsage;
  judgeUsage: UnitUsage | null;
}

/** Whether the re-run called a model: local simulators without a judge cost a true nothing. */
function spentOn({ usage, judgeUsage }: RerunUsage): boolean {
  return judgeUsage !== null || usage.inputTokens + usage.outputTokens > 0 || usage.costUsd !== 0;
}

/** One unit's usage in the words of a run's total (a cost not known reads "not priced"). */
function unitUsageText(unit: UnitUsage): string {
  return usageText(addUnitUsage(NO_USAGE, unit));
}

export function rerunUsageText({ usage, judgeUsage }: RerunUsage): string {
  const simulator = `simulator ${unitUsageText(usage)}`;
  return judgeUsage === null ? simulator : `${simulator} · judge ${unitUsageText(judgeUsage)}`;
}

/** The re-run's judge verdict beside the run's, or that the judge gave none this time. */
export function judgeVerdictText(recomputed: number | null, stored: number | null): string {
  const run = `(run: ${formatScore100(stored)})`;
  return recomputed === null
    ? `judge overall: no verdict this time (the request failed or its answer could not be read) ${run}`
    : `judge overall ${formatScore100(recomputed)} ${run}`;
}
