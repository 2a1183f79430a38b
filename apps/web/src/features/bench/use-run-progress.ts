import { useQuery, useQueryClient, type QueryClient } from '@tanstack/react-query';
import { useSubscription } from '@trpc/tanstack-react-query';
import { isFinishedRun, type BenchRun } from '@terrarium/schema';
import { useEffect, useRef, useState } from 'react';
import { useTRPC } from '../../app/trpc';
import { ELSEWHERE_REFRESH_MS } from './elsewhere-refresh';
import { newerRun } from './run-progress';

/**
 * A bench run as it progresses: loaded, then streamed (server-sent events) until it ends.
 * The latest snapshot is kept here because `useSubscription` drops its data when the stream ends.
 * When the run finishes, everything derived from its scores is fetched again. A finished run is
 * read again every few seconds: a retry or a resume started elsewhere (the CLI, another tab)
 * changes it, and the page follows it as if started here.
 */
export function useRunProgress(runId: string) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const loaded = useQuery({
    ...trpc.bench.run.queryOptions({ runId }),
    staleTime: 0,
    refetchInterval: (query) =>
      query.state.data !== undefined && isFinishedRun(query.state.data)
        ? ELSEWHERE_REFRESH_MS
        : false,
  });
  const [streamed, setStreamed] = useState<BenchRun | null>(null);
  const run =
    loaded.data === undefined
      ? streamed
      : streamed === null
        ? loaded.data
        : newerRun(loaded.data, streamed);
  const live = loaded.data !== undefined && !isFinishedRun(loaded.data);
  const subscription = useSubscription(
    trpc.bench.watchRun.subscriptionOptions(
      { runId },
      {
        enabled: live,
        onData: (next) => setStreamed((previous) => newerRun(previous, next)),
      },
    ),
  );

  const finished = run !== null && isFinishedRun(run);
  useEffect(() => {
    if (!finished || !live) return;
    // Scores written while the run went on: the leaderboard, charts and cell lists are now final.
    // The run itself is read again too, so that it is polled from now on as a finished run.
    void queryClient.invalidateQueries({ queryKey: trpc.bench.run.queryKey({ runId }) });
    invalidateScores(queryClient, trpc, runId);
  }, [finished, live, queryClient, trpc, runId]);

  // The loaded run changed under the page (read again after it finished, or after a poll saw a
  // retry or resume): the stream starts over from it and what derives from its scores is read again.
  const stamp = loaded.data === undefined ? null : runStamp(loaded.data);
  const previousStamp = useRef(stamp);
  useEffect(() => {
    const before = previousStamp.current;
    previousStamp.current = stamp;
    if (before === null || stamp === null || before === stamp) return;
    setStreamed(null);
    invalidateScores(queryClient, trpc, runId);
  }, [stamp, queryClient, trpc, runId]);

  return {
    run,
    error: loaded.error,
    isPending: loaded.isPending,
    streamError: subscription.error,
    /** Replace the snapshot with a mutation's answer (cancel). */
    update: (next: BenchRun) => setStreamed((previous) => newerRun(previous, next)),
    /**
     * A resumed run goes on again, which `newerRun` never lets a finished snapshot do: the loaded
     * run becomes the mutation's answer, the stream starts over from it.
     */
    restart: (next: BenchRun) => {
      queryClient.setQueryData(trpc.bench.run.queryKey({ runId }), next);
      setStreamed(null);
      // A retry that only asked the judge again leaves the run finished with the same counts.
      invalidateScores(queryClient, trpc, runId);
    },
  };
}

/**
 * What of a run changes when it goes on: its status and counts, and its judge's tokens (a retry
 * that asked the judge again changes nothing else).
 */
function runStamp(run: BenchRun): string {
  const judged =
    run.judgeUsage === null ? '' : run.judgeUsage.inputTokens + run.judgeUsage.outputTokens;
  return `${run.status} ${run.done} ${run.failed} ${run.finishedAt ?? ''} ${judged}`;
}

/** The leaderboard, charts, cell lists and run lists: everything read from a run's scores. */
function invalidateScores(
  queryClient: QueryClient,
  trpc: ReturnType<typeof useTRPC>,
  runId: string,
): void {
  void queryClient.invalidateQueries({ queryKey: trpc.bench.leaderboard.queryKey({ runId }) });
  void queryClient.invalidateQueries({ queryKey: trpc.bench.chartSlices.queryKey() });
  void queryClient.invalidateQueries({ queryKey: trpc.bench.cellItems.queryKey() });
  void queryClient.invalidateQueries({ queryKey: trpc.bench.runs.queryKey() });
}
