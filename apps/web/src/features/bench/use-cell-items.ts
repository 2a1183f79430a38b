import { keepPreviousData, useQueries, useQuery } from '@tanstack/react-query';
import type { CellItem, ScoreSelector } from '@terrarium/schema';
import { useTRPC } from '../../app/trpc';
import type { BenchCell } from '../../app/url-state';
import { pagesCovering } from '../trajectories/page-range';

export const CELL_PAGE_SIZE = 100;

/**
 * The items behind one leaderboard cell, worst first, fetched a page of 100 at a time for the
 * rows in view only (and the selected one), so a cell of 10,000 items costs what is on screen.
 */
export function useCellItems(
  runId: string,
  cell: BenchCell,
  score: ScoreSelector,
  first: number,
  last: number,
  selected: number | null,
) {
  const trpc = useTRPC();
  const pageOptions = (page: number) =>
    trpc.bench.cellItems.queryOptions({
      runId,
      sim: cell.sim,
      task: cell.task,
      score,
      offset: page * CELL_PAGE_SIZE,
      limit: CELL_PAGE_SIZE,
    });
  const firstPage = useQuery({ ...pageOptions(0), placeholderData: keepPreviousData });
  const pages = new Set(pagesCovering(first, last, CELL_PAGE_SIZE));
  if (selected !== null) pages.add(Math.floor(selected / CELL_PAGE_SIZE));
  pages.delete(0);
  const pageList = [...pages];
  const results = useQueries({ queries: pageList.map(pageOptions) });
  const rowsByPage = new Map<number, CellItem[]>();
  if (firstPage.data) rowsByPage.set(0, firstPage.data.rows);
  pageList.forEach((page, position) => {
    const rows = results[position]?.data?.rows;
    if (rows) rowsByPage.set(page, rows);
  });
  return {
    total: firstPage.data?.total ?? null,
    isPending: firstPage.isPending,
    error: firstPage.error ?? results.find((result) => result.error)?.error ?? null,
    rowAt(index: number): CellItem | undefined {
      const page = Math.floor(index / CELL_PAGE_SIZE);
      return rowsByPage.get(page)?.[index - page * CELL_PAGE_SIZE];
    },
    indexOf(itemId: string): number | null {
      for (const [page, rows] of rowsByPage) {
        const at = rows.findIndex((row) => row.itemId === itemId);
        if (at !== -1) return page * CELL_PAGE_SIZE + at;
      }
      return null;
    },
  };
}
