import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, type ReactNode } from 'react';
import { onSessionProofChange, takeOwnerLinkRefusal } from '../../app/session-proof';
import { useTRPC } from '../../app/trpc';
import { LoginPage } from './login-page';
import { resetForOtherTab } from './reset-session';
import './auth.css';

/**
 * Shows the app to a logged-in caller and the login page to anyone else. The server decides:
 * on loopback with no accounts the page load already carries a local-owner session, so this
 * passes straight through; the server still checks every request on its own.
 */
export function AuthGate({ children }: { children: ReactNode }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  // Tabs follow each other's login and logout.
  useEffect(() => onSessionProofChange(() => resetForOtherTab(queryClient)), [queryClient]);
  const whoami = useQuery(trpc.auth.whoami.queryOptions(undefined, { staleTime: Infinity }));
  const signedIn = whoami.data !== undefined && whoami.data.kind !== 'anonymous';
  // An owner's link refused while signed in has nothing left to explain at a later logout.
  useEffect(() => {
    if (signedIn) takeOwnerLinkRefusal();
  }, [signedIn]);
  if (whoami.isPending) return <p className="status">Loading…</p>;
  if (whoami.isError) {
    return (
      <p className="status status-error" role="alert">
        The server did not answer: {whoami.error.message}
      </p>
    );
  }
  if (whoami.data.kind === 'anonymous') return <LoginPage />;
  return children;
}
