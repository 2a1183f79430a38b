import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { useTRPC } from '../../app/trpc';
import { takeNewAccount } from './new-account';
import { resetForPrincipal } from './reset-session';

export function LoginPage() {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  // Read once per page: after the local owner made the first account, the form starts from it.
  const [made] = useState(takeNewAccount);
  const [name, setName] = useState(made ?? '');
  const [password, setPassword] = useState('');
  const accountsExist = useQuery(trpc.auth.accountsExist.queryOptions());
  const login = useMutation(
    trpc.auth.login.mutationOptions({
      onSuccess: (principal) =>
        resetForPrincipal(queryClient, trpc.auth.whoami.queryKey(), principal),
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
          {made !== null
            ? `Account ${made} made: from now on everyone logs in, you too. Log in with it.`
            : accountsExist.data === false
              ? 'No accounts yet. On the machine Terrarium runs on, open the link `terrarium serve` printed (it ends in ?token=…), or make the first researcher with `pnpm terrarium users add NAME --role researcher`.'
              : 'Log in with your account (researchers add accounts under Accounts on the Labeling page).'}
        </p>
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
