import { QueryClientProvider } from '@tanstack/react-query';
import { useState } from 'react';
import { AppShell } from './app-shell';
import { TRPCProvider, createApiClient, createQueryClient } from './trpc';

export function App() {
  const [queryClient] = useState(createQueryClient);
  const [trpcClient] = useState(createApiClient);
  return (
    <QueryClientProvider client={queryClient}>
      <TRPCProvider trpcClient={trpcClient} queryClient={queryClient}>
        <AppShell />
      </TRPCProvider>
    </QueryClientProvider>
  );
}
