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
