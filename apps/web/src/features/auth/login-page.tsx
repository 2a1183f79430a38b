import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { keepSessionProof, takeOwnerLinkRefusal } from '../../app/session-proof';
import { useTRPC } from '../../app/trpc';
import { takeNewAccount } from './new-account';
import { resetForPrincipal } from './reset-session';

/** How one gets in, as `auth.entry` says it (`researcher`: said on loopback alone). */
export interface Entry {
  accounts: boolean;
  ownerLink: boolean;
  researcher: boolean | null;
}

/** What the login page says first: how to get in from where this server stands. */
export function LoginHint({ made, entry }: { made: string | null; entry: Entry | null }) {
  if (made !== null) {
    return <>Account {made} made: from now on everyone logs in, you too. Log in with it.</>;
  }
  if (entry?.accounts === false) {
    return (
      <>
        No accounts yet. On the machine Terrarium runs on,{' '}
        {entry.ownerLink && (
          <>
            open the link <code>terrarium serve</code> printed (it ends in <code>?token=…</code>),
            or{' '}
          </>
        )}
        make the first researcher with <code>pnpm terrarium users add NAME --role researcher</code>.
      </>
    );
  }
  // Labelers alone (a folder from before the command line held to the rule): nobody can add a
  // researcher on the page, and the owner's link no longer logs in, so the command is the way.
  if (entry?.researcher === false) {
    return (
      <>
        No account is a researcher’s, so nobody can add accounts on the page. On the machine
        Terrarium runs on, add one with <code>pnpm terrarium users add NAME --role researcher</code>
        , or make an account one with <code>pnpm terrarium users role NAME --role researcher</code>.
      </>
    );
  }
  // Off loopback the server does not say whether a researcher exists: the command line is named
  // too, so the advice holds either way.
  return (
    <>
      Log in with your account (a researcher adds accounts under Accounts on the Labeling page, or
      on the machine Terrarium runs on with <code>pnpm terrarium users add</code>).
    </>
  );
}

export function LoginPage() {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  // Read once per page: after the local owner made the first account, the form starts from it.
  const [made] = useState(takeNewAccount);
  const [name, setName] = useState(made ?? '');
  const [password, setPassword] = useState('');
  const entry = useQuery(trpc.auth.entry.queryOptions());
  // Read once: the server sent a link that could not log in here (request-gate.ts).
  const [linkRefused] = useState(takeOwnerLinkRefusal);
  const login = useMutation(
    trpc.auth.login.mutationOptions({
      onSuccess: ({ principal, sessionProof }) => {
        keepSessionProof(sessionProof);
        resetForPrincipal(queryClient, trpc.auth.whoami.queryKey(), principal);
      },
    }),
  );
  const submit = (event: FormEvent) => {
    event.preventDefault();
    login.mutate({ name, password });
  };
  return (
    <main className="login-page">
      <form className="login-form" onSubmit={submit} aria-label="Log in">
        <h1>Terrarium</h1>
        <p className="muted" data-testid="login-hint">
          <LoginHint made={made} entry={entry.data ?? null} />
        </p>
        {linkRefused && (
          <p className="status status-error" data-testid="owner-link-refused">
            {entry.data?.ownerLink === false
              ? 'That link logs in only on a server bound to 127.0.0.1; here everyone logs in with an account.'
              : entry.data?.accounts === true
                ? 'That link no longer logs in: accounts exist now, and everyone logs in with one.'
                : 'That link did not log you in: its token is not this server’s (each data folder has its own; use the link this server printed).'}
          </p>
        )}
        <label>
          Name
          <input
            type="text"
            name="username"
            autoComplete="username"
            value={name}
            onChange={(event) => setName(event.target.value)}
            required
            autoFocus={made === null}
          />
        </label>
        <label>
          Password
          <input
            type="password"
            name="password"
            autoComplete="current-password"
            value={password}
            onChange={(event) => setPassword(event.target.value)}
            required
            autoFocus={made !== null}
          />
        </label>
        {login.isError && (
          <p className="status status-error" role="alert">
            {login.error.message}
          </p>
        )}
        <button type="submit" className="primary" disabled={login.isPending}>
          {login.isPending ? 'Logging in…' : 'Log in'}
        </button>
      </form>
    </main>
  );
}
