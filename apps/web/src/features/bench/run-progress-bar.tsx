import { useMutation } from '@tanstack/react-query';
import type { BenchRun } from '@terrarium/schema';
import { formatCount } from '../../app/format';
import { useTRPC } from '../../app/trpc';
import { costText, isFinished, modeLabel, progressShare, promptsLabel } from './format-bench';

/** Status, work units done/failed/total, tokens and cost of a run, and a cancel button. */
export function RunProgressBar({
  run,
  onChange,
  streamError,
}: {
  run: BenchRun;
  onChange(run: BenchRun): void;
  streamError: { message: string } | null;
}) {
  const trpc = useTRPC();
  const cancel = useMutation(trpc.bench.cancelRun.mutationOptions({ onSuccess: onChange }));
  const share = progressShare(run);
  const finished = isFinished(run.status);
  return (
    <section className="panel run-progress" aria-label="Progress" data-testid="run-progress">
      <div className="panel-body run-progress-body">
        <span className={`run-status run-status-${run.status}`} data-testid="run-status">
          {run.status}
        </span>
        <progress
          className="run-progress-meter"
          aria-label="Items done"
          max={run.total}
          value={run.done + run.failed}
        />
        <span data-testid="run-counts">
          {formatCount(run.done)} done · {formatCount(run.failed)} failed · {formatCount(run.total)}{' '}
          total
        </span>
        <span className="muted">{Math.round(share * 100)}%</span>
        <span className="muted" data-testid="run-usage">
          {formatCount(run.usage.inputTokens)} in / {formatCount(run.usage.outputTokens)} out tokens
          · {costText(run.usage)}
        </span>
        <span className="muted">
          {modeLabel(run.mode)} · {run.split} split
          {run.judge !== null && ` · judge ${run.judge.spec}`}
        </span>
        <span
          className="muted"
          data-testid="run-prompts"
          title={
            run.prompts === null
              ? undefined
              : `SHA-256 ${run.prompts.hash}: ${run.prompts.files.join(', ')}`
          }
        >
          {promptsLabel(run.prompts)}
        </span>
        {!finished && (
          <button
            type="button"
            className="spacer-left"
            disabled={cancel.isPending}
            onClick={() => cancel.mutate({ runId: run.id })}
          >
            {cancel.isPending ? 'Canceling…' : 'Cancel run'}
          </button>
        )}
      </div>
      {run.error !== null && (
        <p className="status status-error" role="alert">
          {run.error}
        </p>
      )}
      {cancel.error && (
        <p className="status status-error" role="alert">
          Could not cancel: {cancel.error.message}
        </p>
      )}
      {streamError && !finished && (
        <p className="status status-error" role="alert">
          Progress stream stopped: {streamError.message}
        </p>
      )}
    </section>
  );
}
