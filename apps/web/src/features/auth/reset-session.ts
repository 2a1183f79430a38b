import type { QueryClient, QueryKey } from '@tanstack/react-query';

/**
 * After a login or logout: drop everything fetched as the previous caller (it may be data the
 * next one must not see), then set who is calling now. The whoami query itself stays (removing
 * an observed query would leave the auth gate watching a dead entry).
 */
export function resetForPrincipal(
  queryClient: QueryClient,
  whoamiKey: QueryKey,
  principal: unknown,
): void {
  const whoami = JSON.stringify(whoamiKey);
  queryClient.removeQueries({ predicate: (query) => JSON.stringify(query.queryKey) !== whoami });
  queryClient.setQueryData(whoamiKey, principal);
}

/**
 * After a login or logout in another tab: this page now sends that tab's proof (it is read at each
 * request), so what it fetched as the previous caller is reset (pages still showing refetch as the
 * new one, or give way to the login page). Without it the tab showed its login page, or stale data,
 * until a request of its own was refused; logging in there too replaced the other tab's session.
 */
export function resetForOtherTab(queryClient: QueryClient): void {
  void queryClient.resetQueries();
}
