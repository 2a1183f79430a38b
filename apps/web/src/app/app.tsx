import { QueryClientProvider } from '@tanstack/react-query';
import { useState } from 'react';
import { AuthGate } from '../features/auth/auth-gate';
import { AppShell } from './app-shell';
import { TRPCProvider, createApiClient, createQueryClient } from './trpc';

export function App() {
  const [queryClient] = useState(createQueryClient);
  const [trpcClient] = useState(createApiClient);
  return (
    <QueryClientProvider client={queryClient}>
      <TRPCProvider trpcClient={trpcClient} queryClient={queryClient}>
        <AuthGate>
          <AppShell />
        </AuthGate>
      </TRPCProvider>
    </QueryClientProvider>
  );
}
