import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { LOCAL_OWNER_ID } from '@terrarium/schema';
import { forgetSessionProof } from '../../app/session-proof';
import { useTRPC } from '../../app/trpc';
import { ChangePasswordButton } from './change-password';
import { resetForPrincipal } from './reset-session';

/** Who is logged in, and a way out (not for the local owner, who has no account to leave). */
export function UserMenu() {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const whoami = useQuery(trpc.auth.whoami.queryOptions(undefined, { staleTime: Infinity }));
  const logout = useMutation(
    trpc.auth.logout.mutationOptions({
      onSuccess: () => {
        forgetSessionProof();
        resetForPrincipal(queryClient, trpc.auth.whoami.queryKey(), { kind: 'anonymous' });
      },
    }),
  );
  const principal = whoami.data;
  if (principal?.kind !== 'user' || principal.userId === LOCAL_OWNER_ID) return null;
  return (
    <div className="user-menu">
      <span title={`role: ${principal.role}`}>
        {principal.name} <span className="muted">({principal.role})</span>
      </span>
      <ChangePasswordButton />
      <button type="button" onClick={() => logout.mutate()} disabled={logout.isPending}>
        Log out
      </button>
    </div>
  );
}
