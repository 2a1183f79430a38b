import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useSubscription } from '@trpc/tanstack-react-query';
import type { BenchRun } from '@terrarium/schema';
import { useEffect, useState } from 'react';
import { useTRPC } from '../../app/trpc';
import { isFinished } from './format-bench';
import { newerRun } from './run-progress';

/**
 * A bench run as it progresses: loaded once, then streamed (server-sent events) until it ends.
 * The latest snapshot is kept here because `useSubscription` drops its data when the stream ends.
 * When the run finishes, everything derived from its scores is fetched again.
 */
export function useRunProgress(runId: string) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const loaded = useQuery({ ...trpc.bench.run.queryOptions({ runId }), staleTime: 0 });
  const [streamed, setStreamed] = useState<BenchRun | null>(null);
  const run =
    loaded.data === undefined
      ? streamed
      : streamed === null
        ? loaded.data
        : newerRun(loaded.data, streamed);
  const live = loaded.data !== undefined && !isFinished(loaded.data.status);
  const subscription = useSubscription(
    trpc.bench.watchRun.subscriptionOptions(
      { runId },
      {
        enabled: live,
        onData: (next) => setStreamed((previous) => newerRun(previous, next)),
      },
    ),
  );

  const finished = run !== null && isFinished(run.status);
  useEffect(() => {
    if (!finished || !live) return;
    // Scores written while the run went on: the leaderboard, charts and cell lists are now final.
    void queryClient.invalidateQueries({ queryKey: trpc.bench.leaderboard.queryKey({ runId }) });
    void queryClient.invalidateQueries({ queryKey: trpc.bench.chartSlices.queryKey() });
    void queryClient.invalidateQueries({ queryKey: trpc.bench.cellItems.queryKey() });
    void queryClient.invalidateQueries({ queryKey: trpc.bench.runs.queryKey() });
  }, [finished, live, queryClient, trpc, runId]);

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
    },
  };
}
