import { useMutation } from '@tanstack/react-query';
import { isFinishedRun, type BenchRun } from '@terrarium/schema';
import { useState } from 'react';
import { ConfirmDelete } from '../../app/confirm-delete';
import { formatCount, plural } from '../../app/format';
import { useTRPC } from '../../app/trpc';
import { judgeLabel, modeLabel, progressShare, promptsLabel, runUsageText } from './format-bench';
import { RunCounts } from './runs-table';

/**
 * Status, work units done/failed/total, tokens and cost of a run; cancel while it goes, resume
 * once canceled, retry its failed units once it has ended, delete once it is not going.
 */
export function RunProgressBar({
  run,
  retryable,
  missingVerdicts,
  askingJudge,
  onChange,
  onResumed,
  onDeleted,
  streamError,
}: {
  run: BenchRun;
  /** Failed units a retry could change (`retryableFailures`): not misses of replay or retrieval. */
  retryable: number;
  /** Verdicts the run's judge owes (`missingVerdictCount`): a retry asks for them. */
  missingVerdicts: number;
  /** The server is asking the run's judge again (this tab's retry or another's, or a CLI's). */
  askingJudge: boolean;
  onChange(run: BenchRun): void;
  /** The run goes on again: its progress is followed from this snapshot. */
  onResumed(run: BenchRun): void;
  onDeleted(): void;
  streamError: { message: string } | null;
}) {
  const trpc = useTRPC();
  const cancel = useMutation(trpc.bench.cancelRun.mutationOptions({ onSuccess: onChange }));
  const resume = useMutation(trpc.bench.resumeRun.mutationOptions({ onSuccess: onResumed }));
  const retry = useMutation(trpc.bench.retryFailed.mutationOptions({ onSuccess: onResumed }));
  const remove = useMutation(trpc.bench.deleteRun.mutationOptions({ onSuccess: onDeleted }));
  const stopJudge = useMutation(trpc.bench.stopJudge.mutationOptions());
  const [confirming, setConfirming] = useState(false);
  const share = progressShare(run);
  const finished = isFinishedRun(run);
  const unrecorded = run.total - run.done - run.failed;
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
        <RunCounts run={run} testId="run-counts" />
        <span className="muted">{Math.round(share * 100)}%</span>
        <span className="muted" data-testid="run-usage">
          {runUsageText(run)}
        </span>
        <span className="muted" data-testid="run-settings">
          {modeLabel(run.mode)} · {run.split} split
          {run.judge !== null && ` · judge ${judgeLabel(run.judge)}`}
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
            Stop it? The {formatCount(unrecorded)} units not recorded yet will wait until you resume
            the run; until then its cells cover fewer items.{' '}
            <button
              type="button"
              className="danger"
              disabled={cancel.isPending}
              onClick={() =>
                cancel.mutate({ runId: run.id }, { onSuccess: () => setConfirming(false) })
              }
            >
              {cancel.isPending ? 'Canceling…' : 'Stop run'}
            </button>{' '}
            <button type="button" onClick={() => setConfirming(false)}>
              Keep running
            </button>
          </span>
        )}
        {run.status === 'canceled' && unrecorded > 0 && (
          <button
            type="button"
            className="spacer-left"
            disabled={resume.isPending}
            title="Runs the units not recorded yet, with the same simulators, judge and prompts; what the run recorded stays"
            onClick={() => resume.mutate({ runId: run.id })}
          >
            {resume.isPending ? 'Resuming…' : `Resume run (${formatCount(unrecorded)} units left)`}
          </button>
        )}
        {finished && (retryable > 0 || missingVerdicts > 0) && (
          <button
            type="button"
            className={run.status === 'canceled' && unrecorded > 0 ? undefined : 'spacer-left'}
            disabled={retry.isPending || askingJudge}
            title={retryTitle(run, unrecorded, missingVerdicts)}
            onClick={() => retry.mutate({ runId: run.id })}
          >
            {askingJudge && missingVerdicts > 0
              ? `Asking the judge… (${plural(missingVerdicts, 'verdict')} missing)`
              : retry.isPending
                ? 'Retrying…'
                : retryLabel(run, missingVerdicts)}
          </button>
        )}
        {finished && askingJudge && (
          <button
            type="button"
            disabled={stopJudge.isPending}
            title="Stops asking the judge once its requests in flight are dropped; the verdicts it gave stay, the others stay missing for a later retry"
            onClick={() => stopJudge.mutate({ runId: run.id })}
          >
            {stopJudge.isPending ? 'Stopping…' : 'Stop asking'}
          </button>
        )}
        {finished && (
          <span
            className={
              (run.status === 'canceled' && unrecorded > 0) || run.failed > 0 || missingVerdicts > 0
                ? undefined
                : 'spacer-left'
            }
          >
            <ConfirmDelete
              what="run"
              name={`run ${run.id}`}
              question={`Delete it with its ${plural(run.done + run.failed, 'prediction')} and their scores? The bench stays.`}
              pending={remove.isPending}
              error={remove.error}
              onConfirm={() => remove.mutate({ runId: run.id })}
            />
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
      {retry.error && (
        <p className="status status-error" role="alert">
          Could not retry: {retry.error.message}
        </p>
      )}
      {resume.error && (
        <p className="status status-error" role="alert">
          Could not resume: {resume.error.message}
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

function retryLabel(run: BenchRun, missingVerdicts: number): string {
  if (run.failed > 0) return `Retry ${plural(run.failed, 'failed unit')}`;
  // A pairwise judge compares two simulators' predictions once both are in: after the run.
  if (run.judge?.mode === 'pairwise') {
    return `Judge the pairs (${formatCount(missingVerdicts)} without a verdict)`;
  }
  return `Ask the judge again (${plural(missingVerdicts, 'verdict')} missing)`;
}

function retryTitle(run: BenchRun, unrecorded: number, missingVerdicts: number): string {
  const judge =
    missingVerdicts > 0
      ? ` The judge is first asked again for its ${plural(missingVerdicts, 'missing verdict')}, on the predictions stored.`
      : '';
  if (run.failed === 0 && run.judge?.mode === 'pairwise') {
    return `Asks the pairwise judge about each pair of predictions with no verdict yet (never asked, or its answer could not be read); the verdicts read stay.`;
  }
  if (run.failed === 0) {
    return `Asks the run's judge again where its verdict is missing (a request that failed, an answer that could not be read), on the predictions stored; the verdicts read stay.`;
  }
  return run.status === 'canceled' && unrecorded > 0
    ? `Predicts the failed units again, and the units not recorded yet, with the same simulators, judge and prompts; the rest stays.${judge}`
    : `Predicts the failed units again with the same simulators, judge and prompts, e.g. once the endpoint answers again; the rest stays.${judge}`;
}
