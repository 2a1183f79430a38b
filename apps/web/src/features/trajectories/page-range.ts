export const TRAJECTORY_PAGE_SIZE = 200;

/** The page numbers (of `pageSize` rows) that hold rows `first`..`last`, inclusive. */
export function pagesCovering(first: number, last: number, pageSize: number): number[] {
  if (last < first || first < 0) return [];
  const pages: number[] = [];
  for (let page = Math.floor(first / pageSize); page <= Math.floor(last / pageSize); page++) {
    pages.push(page);
  }
  return pages;
}
