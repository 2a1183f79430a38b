import { keepPreviousData, useQuery, useQueryClient } from '@tanstack/react-query';
import type { Step } from '@terrarium/schema';
import { useEffect } from 'react';
import { useTRPC } from '../../app/trpc';

export const STEP_WINDOW_SIZE = 50;

export function windowStart(index: number): number {
  return Math.floor(index / STEP_WINDOW_SIZE) * STEP_WINDOW_SIZE;
}

function stepWindowOptions(trpc: ReturnType<typeof useTRPC>, trajectoryId: string, start: number) {
  return {
    ...trpc.trajectories.steps.queryOptions({
      trajectoryId,
      offset: start,
      limit: STEP_WINDOW_SIZE,
    }),
    // Recorded steps never change.
    staleTime: Number.POSITIVE_INFINITY,
  };
}

/**
 * The step at `index`, loaded with the 50 steps around it; the neighbouring windows are
 * prefetched so that stepping across a window edge does not wait. Never the whole trajectory.
 */
export function useStep(trajectoryId: string, index: number, total: number) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const offset = windowStart(index);
  const current = useQuery({
    ...stepWindowOptions(trpc, trajectoryId, offset),
    placeholderData: keepPreviousData,
  });

  // Neighbours are fetched once the window shown has arrived, so that the first step's paint does
  // not wait behind them (the embedded store answers one query at a time).
  const shownLoaded = current.data !== undefined && !current.isPlaceholderData;
  useEffect(() => {
    if (!shownLoaded) return;
    for (const neighbour of [offset - STEP_WINDOW_SIZE, offset + STEP_WINDOW_SIZE]) {
      if (neighbour >= 0 && neighbour < total) {
        void queryClient.prefetchQuery(stepWindowOptions(trpc, trajectoryId, neighbour));
      }
    }
  }, [shownLoaded, offset, total, trajectoryId, trpc, queryClient]);

  const steps = current.data?.steps ?? [];
  const step: Step | undefined = steps.find((candidate) => candidate.index === index);
  return { step, error: current.error, isFetching: current.isFetching };
}
