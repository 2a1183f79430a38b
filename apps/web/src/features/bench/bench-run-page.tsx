import { keepPreviousData, useIsMutating, useQuery, useQueryClient } from '@tanstack/react-query';
import {
  missingVerdictCount,
  retryableFailures,
  openingSelector,
  overallSelector,
  RUN_RESULTS_PATH,
  type ScoreSelector,
  isFinishedRun,
} from '@terrarium/schema';
import { useCallback } from 'react';
import { Collapsible } from '../../app/collapsible';
import { Link } from '../../app/link';
import { isNotFound, NotFoundPage } from '../../app/not-found';
import { QueryStatus } from '../../app/query-status';
import { navigate } from '../../app/router';
import { OneTimeLink } from '../../app/one-time-link';
import { useTRPC } from '../../app/trpc';
import type { BenchCell } from '../../app/url-state';
import { CellDrilldown } from './cell-drilldown';
import { LeaderboardTable } from './leaderboard-table';
import { MetricSwitcher } from './metric-switcher';
import { RunProgressBar } from './run-progress-bar';
import { ScoreCharts } from './score-charts';
import { useRunProgress } from './use-run-progress';
import './bench.css';

/** While a run goes on, its leaderboard is fetched again this often (scores land as items finish). */
const LIVE_REFRESH_MS = 3000;
/** Just after a run ends, while its intervals are computed, the leaderboard is asked again this often. */
const INTERVALS_REFRESH_MS = 1000;

function RunCharts({
  runId,
  score,
  sims,
  live,
}: {
  runId: string;
  score: ScoreSelector;
  sims: readonly string[];
  live: boolean;
}) {
  const trpc = useTRPC();
  const slices = useQuery({
    ...trpc.bench.chartSlices.queryOptions({ runId, score }),
    placeholderData: keepPreviousData,
    refetchInterval: live ? LIVE_REFRESH_MS : false,
  });
  return (
    <>
      <QueryStatus label="the charts" isPending={slices.isPending} error={slices.error} />
      {slices.data && <ScoreCharts slices={slices.data} sims={sims} />}
    </>
  );
}

/**
 * One bench run: progress streamed while it goes, the leaderboard for a chosen score, charts, and
 * the items behind any cell. Score, cell and item live in the URL, so a link reopens this view.
 */
export function BenchRunPage({
  runId,
  score: chosenScore,
  cell,
  item,
}: {
  runId: string;
  /** Null: the run's Overall, as `terrarium bench leaderboard` opens it. */
  score: ScoreSelector | null;
  cell: BenchCell | null;
  item: string | null;
}) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const progress = useRunProgress(runId);
  const run = progress.run;
  const live = run !== null && !isFinishedRun(run);
  // A retry asks the judge inside its request: the leaderboard shows its verdicts arriving.
  const retrying = useIsMutating({ mutationKey: trpc.bench.retryFailed.mutationKey() }) > 0;
  const board = useQuery({
    ...trpc.bench.leaderboard.queryOptions({ runId }),
    placeholderData: keepPreviousData,
    refetchInterval: (query) =>
      live || retrying || query.state.data?.askingJudge === true
        ? LIVE_REFRESH_MS
        : query.state.data?.intervals === 'computing'
          ? INTERVALS_REFRESH_MS
          : false,
  });
  const cells = board.data?.cells ?? [];
  const sims = run?.sims ?? [];
  // Until the run is read, the content score: a run without a judge opens on it anyway.
  const score =
    chosenScore ??
    (board.data === undefined
      ? overallSelector(run ?? { judge: null })
      : openingSelector(board.data.run, board.data.cells));

  const go = useCallback(
    (
      next: { score?: ScoreSelector; cell?: BenchCell | null; item?: string | null },
      mode: 'push' | 'replace',
    ) =>
      navigate(
        {
          page: 'bench-run',
          runId,
          score: next.score ?? chosenScore,
          cell: next.cell === undefined ? cell : next.cell,
          item: next.item === undefined ? item : next.item,
        },
        mode,
      ),
    [runId, chosenScore, cell, item],
  );
  const selectItem = useCallback((itemId: string) => go({ item: itemId }, 'replace'), [go]);

  if (isNotFound(progress.error)) {
    return (
      <NotFoundPage
        breadcrumb={
          <>
            <Link to={{ page: 'benches' }}>Benches</Link> › run{' '}
            <span className="mono">{runId}</span>
          </>
        }
        title="No such run"
      >
        No bench run has the id <code>{runId}</code>; it may have been deleted.{' '}
        <Link to={{ page: 'benches' }}>See the benches and their runs.</Link>
      </NotFoundPage>
    );
  }

  return (
    <div className="page bench-run-page">
      <div className="breadcrumb">
        <Link to={{ page: 'benches' }}>Benches</Link> ›{' '}
        {run ? (
          <>
            {run.bench} v{run.benchVersion} › run <span className="mono">{run.id}</span>
          </>
        ) : (
          <>
            run <span className="mono">{runId}</span>
          </>
        )}
      </div>
      <QueryStatus label="the run" isPending={progress.isPending} error={progress.error} />
      {run && (
        <>
          <div className="page-header">
            <h1>
              {run.bench} <span className="muted">v{run.benchVersion}</span>
            </h1>
            <span className="count mono">{run.sims.join(' · ')}</span>
            <div className="page-actions">
              <Link to={{ page: 'bench-compare', runId, otherRunId: null, score: chosenScore }}>
                Compare with another run…
              </Link>
              <OneTimeLink
                path={`${RUN_RESULTS_PATH}?run=${encodeURIComponent(run.id)}`}
                opens="download"
                title="A line per item and simulator: the action, the real and the predicted observation, every score (0-1, keyed source:metric). `terrarium bench results` writes the same."
              >
                Download results (JSONL)
              </OneTimeLink>
            </div>
          </div>
          <RunProgressBar
            run={run}
            retryable={
              board.data === undefined ? run.failed : retryableFailures(board.data.failures)
            }
            missingVerdicts={
              board.data === undefined
                ? 0
                : missingVerdictCount(run, board.data.judgeGaps, board.data.pairsNotAsked)
            }
            askingJudge={board.data?.askingJudge ?? false}
            onChange={progress.update}
            onResumed={progress.restart}
            onDeleted={() => {
              void queryClient.invalidateQueries({ queryKey: trpc.bench.runs.queryKey() });
              void queryClient.invalidateQueries({ queryKey: trpc.bench.list.queryKey() });
              navigate({ page: 'benches' });
            }}
            streamError={progress.streamError}
          />
        </>
      )}
      <div className="leaderboard-controls">
        <MetricSwitcher
          cells={cells}
          score={score}
          onChange={(next) => go({ score: next, item: null }, 'replace')}
        />
        {live && <span className="muted">Refreshed while the run goes on.</span>}
      </div>
      <QueryStatus label="the leaderboard" isPending={board.isPending} error={board.error} />
      {board.data && (
        <LeaderboardTable
          cells={cells}
          score={score}
          sims={sims}
          selected={cell}
          onSelect={(next) => go({ cell: next, item: null }, 'push')}
          // The run as the leaderboard saw it: partial while that snapshot was still going.
          partial={!isFinishedRun(board.data.run)}
          computing={board.data.intervals === 'computing'}
          failures={board.data.failures}
          judgeGaps={board.data.judgeGaps}
          judgeSides={board.data.judgeSides}
        />
      )}
      {cell !== null && (
        <CellDrilldown
          key={`${cell.sim}\n${cell.task}\n${score.source}:${score.metric}`}
          runId={runId}
          cell={cell}
          score={score}
          itemId={item}
          onSelectItem={selectItem}
          onClose={() => go({ cell: null, item: null }, 'push')}
        />
      )}
      {board.data && cells.length > 0 && (
        <Collapsible
          title="Charts"
          summary={`${score.source}:${score.metric}`}
          defaultOpen
          testId="charts"
        >
          <RunCharts runId={runId} score={score} sims={sims} live={live} />
        </Collapsible>
      )}
    </div>
  );
}
