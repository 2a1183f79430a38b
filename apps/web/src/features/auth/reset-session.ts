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
  dropAllBut(queryClient, whoamiKey);
  queryClient.setQueryData(whoamiKey, principal);
}

/**
 * After a login or logout in another tab: this page now sends that tab's proof (it is read at each
 * request), so drop what it fetched as the previous caller and ask the server who is calling now.
 * Without it the tab showed its login page, or stale data, until a refused request; logging in
 * there too replaced the other tab's session, which then showed its login page in turn.
 */
export function resetForOtherTab(queryClient: QueryClient, whoamiKey: QueryKey): void {
  dropAllBut(queryClient, whoamiKey);
  void queryClient.invalidateQueries({ queryKey: whoamiKey });
}

function dropAllBut(queryClient: QueryClient, kept: QueryKey): void {
  const key = JSON.stringify(kept);
  queryClient.removeQueries({ predicate: (query) => JSON.stringify(query.queryKey) !== key });
}
