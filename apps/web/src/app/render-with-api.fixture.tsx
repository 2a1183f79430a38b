import { QueryClientProvider } from '@tanstack/react-query';
import { render } from '@testing-library/react';
import type { ReactNode } from 'react';
import { TRPCProvider, createQueryClient, type createApiClient } from './trpc';

/**
 * Renders `ui` as the app does, inside a fresh query cache and the tRPC provider, talking to
 * `client` (a `fakeApiClient`'s, or the real one for components that only call on a click).
 */
export function renderWithApi(ui: ReactNode, client: ReturnType<typeof createApiClient>) {
  const queryClient = createQueryClient();
  return render(
    <QueryClientProvider client={queryClient}>
      <TRPCProvider trpcClient={client} queryClient={queryClient}>
        {ui}
      </TRPCProvider>
    </QueryClientProvider>,
  );
}
