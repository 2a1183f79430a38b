import { useMutation } from '@tanstack/react-query';
import { MIN_PASSWORD_LENGTH } from '@terrarium/schema';
import { useEffect, useRef, useState } from 'react';
import { useTRPC } from '../../app/trpc';

/**
 * One's own password, changed from the header: the current one proves it is them. The server
 * ends the account's other sessions (a password someone else knew no longer keeps them in).
 */
export function ChangePasswordButton() {
  const trpc = useTRPC();
  const dialog = useRef<HTMLDialogElement>(null);
  const [open, setOpen] = useState(false);
  const [current, setCurrent] = useState('');
  const [password, setPassword] = useState('');
  const [repeat, setRepeat] = useState('');
  const [mismatch, setMismatch] = useState(false);
  const change = useMutation(
    trpc.auth.changePassword.mutationOptions({
      onSuccess: () => {
        setCurrent('');
        setPassword('');
        setRepeat('');
      },
    }),
  );
  useEffect(() => {
    const element = dialog.current;
    if (element === null) return;
    if (open && !element.open) element.showModal();
    if (!open && element.open) element.close();
  }, [open]);

  return (
    <>
      <button
        type="button"
        onClick={() => {
          change.reset();
          setMismatch(false);
          setOpen(true);
        }}
      >
        Password
      </button>
      <dialog
        ref={dialog}
        className="password-dialog"
        aria-label="Change your password"
        onClose={() => setOpen(false)}
      >
        <form
          className="login-form"
          onSubmit={(event) => {
            event.preventDefault();
            setMismatch(password !== repeat);
            if (password === repeat) change.mutate({ current, password });
          }}
        >
          <h2>Change your password</h2>
          <label>
            Current password
            <input
              type="password"
              value={current}
              autoComplete="current-password"
              required
              onChange={(event) => setCurrent(event.target.value)}
            />
          </label>
          <label>
            New password
            <input
              type="password"
              value={password}
              autoComplete="new-password"
              placeholder={`at least ${MIN_PASSWORD_LENGTH} characters`}
              required
              onChange={(event) => setPassword(event.target.value)}
            />
          </label>
          <label>
            New password again
            <input
              type="password"
              value={repeat}
              autoComplete="new-password"
              required
              onChange={(event) => setRepeat(event.target.value)}
            />
          </label>
          {mismatch && (
            <p className="status status-error" role="alert">
              The two new passwords differ.
            </p>
          )}
          {change.error && !mismatch && (
            <p className="status status-error" role="alert">
              {change.error.message}
            </p>
          )}
          {change.isSuccess && (
            <p className="status" role="status" data-testid="password-changed">
              Password changed. Your sessions in other browsers were logged out; this one stays.
            </p>
          )}
          <div className="page-actions">
            <button type="submit" className="button primary" disabled={change.isPending}>
              Change password
            </button>
            <button type="button" className="button" onClick={() => setOpen(false)}>
              {change.isSuccess ? 'Close' : 'Cancel'}
            </button>
          </div>
        </form>
      </dialog>
    </>
  );
}
