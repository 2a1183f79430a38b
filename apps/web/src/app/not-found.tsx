import type { ReactNode } from 'react';

/**
 * Whether a query failed because what it asked for does not exist (the server's NOT_FOUND): a
 * stale link or a deleted run says so on a page of its own, not as "could not load" with the
 * API's field name in front.
 */
export function isNotFound(error: unknown): boolean {
  if (typeof error !== 'object' || error === null || !('data' in error)) return false;
  const { data } = error;
  return typeof data === 'object' && data !== null && 'code' in data && data.code === 'NOT_FOUND';
}

/** A page for an id nothing has: what was asked for, and where to find what there is. */
export function NotFoundPage({
  breadcrumb,
  title,
  children,
}: {
  breadcrumb: ReactNode;
  title: string;
  children: ReactNode;
}) {
  return (
    <div className="page">
      <div className="breadcrumb">{breadcrumb}</div>
      <h1>{title}</h1>
      <p data-testid="not-found">{children}</p>
    </div>
  );
}
