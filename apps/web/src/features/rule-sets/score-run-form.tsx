import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import { ruleSetVersionName } from '@terrarium/schema';
import { Link } from '../../app/link';
import { useTRPC } from '../../app/trpc';
import { previewableRuns } from './preview-query';
import { newestVersion, RunSelect, VersionSelect } from './rule-set-selects';
import { scoreRunStatusText } from './score-run-status';

/**
 * Scores every prediction of a finished bench run with a saved version of the rule set, in the
 * background; when it is done the version is a metric of the run (`NAME@vN`) and a link opens the
 * run's leaderboard on it. Only saved versions: a score must name what produced it.
 */
export function ScoreRunForm({ name }: { name: string }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const runs = useQuery(trpc.bench.runs.queryOptions({}));
  const finished = previewableRuns(runs.data);
  const versions = useQuery(trpc.rulesets.versions.queryOptions({ name }));
  const [runId, setRunId] = useState<string | null>(null);
  const run = finished.find((candidate) => candidate.id === runId) ?? finished[0] ?? null;
  const [version, setVersion] = useState<number | null>(null);
  const newest = newestVersion(versions.data);
  const picked = version ?? newest;
  const [jobId, setJobId] = useState<string | null>(null);
  const start = useMutation(
    trpc.rulesets.scoreRun.mutationOptions({ onSuccess: (progress) => setJobId(progress.id) }),
  );
  const status = useQuery({
    ...trpc.rulesets.scoreRunStatus.queryOptions({ id: jobId ?? '' }),
    enabled: jobId !== null,
    refetchInterval: (query) => (query.state.data?.status === 'running' ? 500 : false),
    staleTime: 0,
  });
  const progress = status.data;
  // The run the job scores (the select may have moved on since): its units are its predictions.
  const scoredRun = finished.find((candidate) => candidate.id === progress?.runId) ?? null;
  // The run's leaderboard (the run page's own query, so usually cached) says whether this version
  // already scored it: after a reload the job's status is gone, and the page offered only to score
  // it again (walk 43).
  const board = useQuery({
    ...trpc.bench.leaderboard.queryOptions({ runId: run?.id ?? '' }),
    enabled: run !== null && picked !== null,
  });
  const metric = picked === null ? null : ruleSetVersionName({ name, version: picked });
  const scoredBefore =
    progress === undefined &&
    run !== null &&
    board.data?.run.id === run.id &&
    board.data.cells.some((cell) => cell.source === 'rule' && cell.metric === metric);
  const doneJob = progress?.status === 'done' ? progress.id : null;
  // The run's views read the new metric once the job is done, and its items the new breakdowns.
  useEffect(() => {
    if (doneJob === null) return;
    void queryClient.invalidateQueries({ queryKey: trpc.bench.pathKey() });
    void queryClient.invalidateQueries({ queryKey: trpc.rulesets.itemBreakdowns.pathKey() });
  }, [doneJob, queryClient, trpc]);

  if (versions.isSuccess && newest === null) {
    return (
      <p className="muted" data-testid="score-run-unsaved">
        Save a version of {name} to score a whole run with it.
      </p>
    );
  }
  return (
    <form
      className="page-actions"
      aria-label="Score a run"
      onSubmit={(event) => {
        event.preventDefault();
        if (run === null || picked === null) return;
        start.mutate({ runId: run.id, ruleSet: { name, version: picked } });
      }}
    >
      <RunSelect label="Run to score" runs={finished} value={run?.id ?? null} onChange={setRunId} />
      <VersionSelect
        label="Version to score with"
        versions={versions.data ?? []}
        value={picked}
        onChange={setVersion}
      />
      <button
        type="submit"
        className="button"
        disabled={
          run === null || picked === null || start.isPending || progress?.status === 'running'
        }
      >
        Score every prediction
      </button>
      {progress && (
        <span className="status" data-testid="score-run-status">
          {scoreRunStatusText(progress, name, scoredRun?.total ?? null)}
        </span>
      )}
      {progress?.status === 'done' && (
        <Link
          to={{
            page: 'bench-run',
            runId: progress.runId,
            score: { source: 'rule', metric: progress.metric },
            cell: null,
            item: null,
          }}
        >
          Open {progress.metric} on run {progress.runId}&apos;s leaderboard
        </Link>
      )}
      {scoredBefore && run !== null && metric !== null && (
        <span className="status" data-testid="score-run-scored">
          {metric} already scored run {run.id}:{' '}
          <Link
            to={{
              page: 'bench-run',
              runId: run.id,
              score: { source: 'rule', metric },
              cell: null,
              item: null,
            }}
          >
            open it on the leaderboard
          </Link>
        </span>
      )}
      {start.error && <span className="status status-error">{start.error.message}</span>}
      {runs.isSuccess && finished.length === 0 && (
        <span className="muted">Run a bench to score its predictions.</span>
      )}
    </form>
  );
}
