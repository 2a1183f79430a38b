import type { AppRouter } from '@terrarium/api';
import { QueryClient } from '@tanstack/react-query';
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

/** A 4xx from the server: the request was refused, and asking again changes nothing. */
export function isRefusal(error: unknown): boolean {
  if (!(error instanceof TRPCClientError)) return false;
  const data: unknown = error.data;
  if (typeof data !== 'object' || data === null || !('httpStatus' in data)) return false;
  const status = data.httpStatus;
  return typeof status === 'number' && status >= 400 && status < 500;
}

export function createQueryClient(): QueryClient {
  return new QueryClient({
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
}
