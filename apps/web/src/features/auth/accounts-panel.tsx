import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { MIN_PASSWORD_LENGTH } from '@terrarium/schema';
import { useState } from 'react';
import { useTRPC } from '../../app/trpc';
import { rememberNewAccount } from './new-account';

type Role = 'researcher' | 'labeler';

function otherRole(role: Role): Role {
  return role === 'researcher' ? 'labeler' : 'researcher';
}

/**
 * A researcher's list of the accounts, to add labelers (and researchers), change their roles and
 * remove them from the page rather than the command line. The server decides what is allowed: the local owner's first
 * account must be a researcher's, nobody removes their own or changes their own role, and the last researcher stays one.
 */
export function AccountsPanel() {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const users = useQuery(trpc.auth.users.list.queryOptions());
  const whoami = useQuery(trpc.auth.whoami.queryOptions());
  const [name, setName] = useState('');
  const [pickedRole, setRole] = useState<Role | null>(null);
  const [password, setPassword] = useState('');
  const [done, setDone] = useState<string | null>(null);
  // Removal asks once more: it ends the person's access at once.
  const [confirming, setConfirming] = useState<string | null>(null);
  // A new password for someone who forgot theirs: typed in the row, their sessions end.
  const [resetting, setResetting] = useState<string | null>(null);
  const [newPassword, setNewPassword] = useState('');
  const principal = whoami.data;
  const self = principal?.kind === 'user' ? principal.name : null;
  // A loopback server with no accounts lets its browser in as the owner; the first account ends it.
  const openAccess = users.data?.length === 0 && principal?.kind === 'user';
  const role = pickedRole ?? (openAccess ? 'researcher' : 'labeler');
  const refresh = async () => {
    await queryClient.invalidateQueries({ queryKey: trpc.auth.users.list.queryKey() });
    // The first account ends the owner's session: whoami turns anonymous and the login page shows.
    if (openAccess) await queryClient.invalidateQueries({ queryKey: trpc.auth.whoami.queryKey() });
  };
  const add = useMutation(
    trpc.auth.users.add.mutationOptions({
      onSuccess: async (user) => {
        setDone(`Added ${user.role} ${user.name}.`);
        // The owner is about to meet the login page: it greets them with the account just made.
        if (openAccess) rememberNewAccount(user.name);
        setName('');
        setPassword('');
        await refresh();
      },
    }),
  );
  const remove = useMutation(
    trpc.auth.users.remove.mutationOptions({
      onSuccess: async (result, input) => {
        setDone(result.removed ? `Removed ${input.name}.` : `No account named ${input.name}.`);
        await refresh();
      },
    }),
  );
  const setPasswordOf = useMutation(
    trpc.auth.users.setPassword.mutationOptions({
      onSuccess: (_result, input) => {
        setDone(`Set a new password for ${input.name}; they were logged out everywhere.`);
        setResetting(null);
        setNewPassword('');
      },
    }),
  );
  const setRoleOf = useMutation(
    trpc.auth.users.setRole.mutationOptions({
      onSuccess: async (_result, input) => {
        setDone(`${input.name} is now a ${input.role}; it applies at their next request.`);
        await refresh();
      },
    }),
  );
  const error = add.error ?? remove.error ?? setPasswordOf.error ?? setRoleOf.error;
  const resetOthers = () => {
    setDone(null);
    add.reset();
    remove.reset();
    setPasswordOf.reset();
    setRoleOf.reset();
  };

  return (
    <section className="panel panel-body" aria-label="Accounts">
      <h2>Accounts</h2>
      <p className="muted">
        {openAccess
          ? 'Nobody logs in yet: on 127.0.0.1 this browser is the owner. The first account must be a researcher: once it exists everyone logs in, you included.'
          : 'Researchers open everything; labelers only their label queues. Labels stay when an account is removed.'}
      </p>
      {(users.data?.length ?? 0) > 0 && (
        <table className="table" aria-label="Accounts list">
          <thead>
            <tr>
              <th>Name</th>
              <th>Role</th>
              <th>Created</th>
              <th />
            </tr>
          </thead>
          <tbody>
            {(users.data ?? []).map((user) => (
              <tr key={user.id} data-testid={`account-${user.name}`}>
                <td>{user.name}</td>
                <td>{user.role}</td>
                <td className="mono">{user.createdAt.slice(0, 10)}</td>
                <td>
                  {user.name === self ? (
                    <span className="muted">you (change yours from the header)</span>
                  ) : resetting === user.name ? (
                    <form
                      className="inline-form"
                      aria-label={`Set the password of ${user.name}`}
                      onSubmit={(event) => {
                        event.preventDefault();
                        resetOthers();
                        setPasswordOf.mutate({ name: user.name, password: newPassword });
                      }}
                    >
                      <input
                        type="password"
                        aria-label={`New password for ${user.name}`}
                        value={newPassword}
                        autoComplete="new-password"
                        placeholder={`at least ${MIN_PASSWORD_LENGTH} characters`}
                        required
                        onChange={(event) => setNewPassword(event.target.value)}
                      />{' '}
                      <button type="submit" disabled={setPasswordOf.isPending}>
                        Set password
                      </button>{' '}
                      <button type="button" onClick={() => setResetting(null)}>
                        Cancel
                      </button>
                    </form>
                  ) : confirming === user.name ? (
                    <span>
                      Remove {user.name}? They can no longer log in; their labels stay.{' '}
                      <button
                        type="button"
                        className="danger"
                        disabled={remove.isPending}
                        onClick={() => {
                          resetOthers();
                          setConfirming(null);
                          remove.mutate({ name: user.name });
                        }}
                      >
                        Remove {user.name}
                      </button>{' '}
                      <button type="button" onClick={() => setConfirming(null)}>
                        Cancel
                      </button>
                    </span>
                  ) : (
                    <span>
                      <button
                        type="button"
                        onClick={() => {
                          setConfirming(null);
                          setNewPassword('');
                          setResetting(user.name);
                        }}
                      >
                        New password
                      </button>{' '}
                      <button
                        type="button"
                        disabled={setRoleOf.isPending}
                        onClick={() => {
                          resetOthers();
                          setRoleOf.mutate({ name: user.name, role: otherRole(user.role) });
                        }}
                      >
                        Make {otherRole(user.role)}
                      </button>{' '}
                      <button
                        type="button"
                        onClick={() => {
                          setResetting(null);
                          setConfirming(user.name);
                        }}
                      >
                        Remove
                      </button>
                    </span>
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <form
        aria-label="New account"
        onSubmit={(event) => {
          event.preventDefault();
          resetOthers();
          add.mutate({ name: name.trim(), role, password });
        }}
      >
        <label>
          Name{' '}
          <input
            value={name}
            autoComplete="off"
            required
            onChange={(event) => setName(event.target.value)}
          />
        </label>{' '}
        <label>
          Role{' '}
          <select
            value={role}
            onChange={(event) => {
              const value = event.target.value;
              if (value === 'researcher' || value === 'labeler') setRole(value);
            }}
          >
            <option value="labeler">labeler</option>
            <option value="researcher">researcher</option>
          </select>
        </label>{' '}
        <label>
          Password{' '}
          <input
            type="password"
            value={password}
            autoComplete="new-password"
            placeholder={`at least ${MIN_PASSWORD_LENGTH} characters`}
            required
            onChange={(event) => setPassword(event.target.value)}
          />
        </label>{' '}
        <button type="submit" disabled={add.isPending}>
          Add account
        </button>
      </form>
      {error && (
        <p className="status status-error" role="alert">
          {error.message}
        </p>
      )}
      {done !== null && !error && (
        <p className="status" role="status">
          {done}
        </p>
      )}
    </section>
  );
}
