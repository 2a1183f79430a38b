import type { AppRouter } from '@terrarium/api';
import { MutationCache, QueryCache, QueryClient } from '@tanstack/react-query';
import {
  createTRPCClient,
  httpLink,
  httpSubscriptionLink,
  splitLink,
  TRPCClientError,
} from '@trpc/client';
import { createTRPCContext } from '@trpc/tanstack-react-query';
import { sessionHeaders, withSessionProof } from './session-proof';

export const { TRPCProvider, useTRPC, useTRPCClient } = createTRPCContext<AppRouter>();

export function createApiClient() {
  return createTRPCClient<AppRouter>({
    links: [
      splitLink({
        condition: (operation) => operation.type === 'subscription',
        // Subscriptions (a bench run's progress) stream as server-sent events on one long request.
        // EventSource sends no headers of a page's choosing, so the proof goes in its URL.
        true: httpSubscriptionLink({ url: () => withSessionProof('/trpc') }),
        false: splitLink({
          // A query's input travels in its URL, and a long one (a rule set being checked as it is
          // typed) passed the server's header limit: 431, and the editor waited forever.
          condition: (operation) =>
            operation.type === 'query' && JSON.stringify(operation.input ?? null).length > 2_000,
          true: httpLink({ url: '/trpc', methodOverride: 'POST', headers: sessionHeaders }),
          // Unbatched: a batch answers only when its slowest query does, and the first step of a
          // replay must not wait for the timeline markers of 10,000 steps.
          false: httpLink({ url: '/trpc', headers: sessionHeaders }),
        }),
      }),
    ],
  });
}

/** The HTTP status of a tRPC call's failure, or null when the server gave none. */
function httpStatusOf(error: unknown): number | null {
  if (!(error instanceof TRPCClientError)) return null;
  const data: unknown = error.data;
  if (typeof data !== 'object' || data === null || !('httpStatus' in data)) return null;
  return typeof data.httpStatus === 'number' ? data.httpStatus : null;
}

/** A 4xx from the server: the request was refused, and asking again changes nothing. */
export function isRefusal(error: unknown): boolean {
  const status = httpStatusOf(error);
  return status !== null && status >= 400 && status < 500;
}

/** `auth.whoami`'s query key (the tRPC client's own shape: path, then input and type). */
const WHOAMI_KEY = [['auth', 'whoami']];

export function createQueryClient(): QueryClient {
  // A 401: this page's session ended under it (a logout in another tab, the first account made,
  // a week gone). Asking who is calling again lets the auth gate show the login page, instead of
  // "log in first" over stale data while the page polls on (walk 42).
  const recheckLogin = (error: unknown) => {
    if (httpStatusOf(error) === 401) void client.invalidateQueries({ queryKey: WHOAMI_KEY });
  };
  const client: QueryClient = new QueryClient({
    queryCache: new QueryCache({ onError: recheckLogin }),
    mutationCache: new MutationCache({ onError: recheckLogin }),
    defaultOptions: {
      queries: {
        // Stored trajectories do not change under the viewer; imports invalidate what they touch.
        staleTime: 60_000,
        // Pages and step windows nobody looks at are dropped soon, so memory follows the view.
        gcTime: 30_000,
        refetchOnWindowFocus: false,
        // Once, for a dropped connection or a server error; a refusal (4xx) answers the same again.
        retry: (failures, error) => failures < 1 && !isRefusal(error),
      },
    },
  });
  return client;
}
