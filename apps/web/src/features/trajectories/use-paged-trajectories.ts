import { useQueries, useQuery } from '@tanstack/react-query';
import type { TrajectoryFilter, TrajectorySummary } from '@terrarium/schema';
import { useTRPC } from '../../app/trpc';
import { TRAJECTORY_PAGE_SIZE, pagesCovering } from './page-range';

function useTrajectoryPageOptions(filter: TrajectoryFilter) {
  const trpc = useTRPC();
  return (page: number) =>
    trpc.trajectories.list.queryOptions({
      filter,
      offset: page * TRAJECTORY_PAGE_SIZE,
      limit: TRAJECTORY_PAGE_SIZE,
    });
}

/** The first page, which also tells how many rows match and in what order they are listed. */
export function useTrajectoryTotal(filter: TrajectoryFilter) {
  const pageOptions = useTrajectoryPageOptions(filter);
  const firstPage = useQuery(pageOptions(0));
  return {
    total: firstPage.data?.total ?? null,
    order: firstPage.data?.order ?? null,
    error: firstPage.error,
  };
}

/**
 * Rows of the trajectory list fetched by offset, one page of 200 per query, only for the pages
 * holding rows `first`..`last`. Unobserved pages fall out of the cache (gcTime), so memory follows
 * the viewport, not the row count.
 */
export function usePagedTrajectories(filter: TrajectoryFilter, first: number, last: number) {
  const pageOptions = useTrajectoryPageOptions(filter);
  const pages = pagesCovering(first, last, TRAJECTORY_PAGE_SIZE);
  const results = useQueries({ queries: pages.map(pageOptions) });
  const rowsByPage = new Map<number, TrajectorySummary[]>();
  pages.forEach((page, position) => {
    const rows = results[position]?.data?.rows;
    if (rows) rowsByPage.set(page, rows);
  });
  return {
    error: results.find((result) => result.error)?.error ?? null,
    rowAt(index: number): TrajectorySummary | undefined {
      const page = Math.floor(index / TRAJECTORY_PAGE_SIZE);
      return rowsByPage.get(page)?.[index - page * TRAJECTORY_PAGE_SIZE];
    },
  };
}
