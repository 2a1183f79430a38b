import { useMutation } from '@tanstack/react-query';
import type { BenchRun } from '@terrarium/schema';
import { useState } from 'react';
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
  const [confirming, setConfirming] = useState(false);
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
        {!finished && !confirming && (
          <button type="button" className="spacer-left" onClick={() => setConfirming(true)}>
            Cancel run
          </button>
        )}
        {!finished && confirming && (
          <span className="spacer-left" role="group" aria-label="Cancel this run">
            {/* A canceled run cannot be resumed, and its cells then cover fewer items. */}
            Stop it? The {formatCount(run.total - run.done - run.failed)} units not recorded yet
            will not run, and a canceled run cannot be resumed.{' '}
            <button
              type="button"
              className="danger"
              disabled={cancel.isPending}
              onClick={() => cancel.mutate({ runId: run.id })}
            >
              {cancel.isPending ? 'Canceling…' : 'Stop run'}
            </button>{' '}
            <button type="button" onClick={() => setConfirming(false)}>
              Keep running
            </button>
          </span>
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
