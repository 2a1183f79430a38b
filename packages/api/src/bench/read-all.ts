import type { BenchRef, Page, Store } from '@terrarium/db';
import type { BenchItem } from '@terrarium/schema';

const PAGE = 1000;

/** Every row of a paged store read, a page at a time. */
export async function readAll<T>(
  read: (offset: number, limit: number) => Promise<Page<T>>,
): Promise<T[]> {
  const rows: T[] = [];
  for (let offset = 0; ; offset += PAGE) {
    const page = await read(offset, PAGE);
    rows.push(...page.rows);
    if (page.rows.length < PAGE || rows.length >= page.total) return rows;
  }
}

/** Every item of a bench (or of one split of it), in build order. */
export function allBenchItems(
  store: Store,
  bench: BenchRef,
  split?: BenchItem['split'],
): Promise<BenchItem[]> {
  return readAll((offset, limit) =>
    store.getBenchItems(bench, { offset, limit, ...(split === undefined ? {} : { split }) }),
  );
}
