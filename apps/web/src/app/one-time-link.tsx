import { useMutation } from '@tanstack/react-query';
import type { ReactNode } from 'react';
import { useTRPC } from './trpc';

/**
 * What the page opens by navigating (a download, a model file in a tab). A navigation sends no
 * headers of the page's choosing, and the browser keeps its URL (history, download list), so the
 * session's proof must not ride in it: the page asks the server for a one-time link at the click
 * (`auth.downloadLink`), then follows it. An ended session is said here, not a silent "canceled"
 * download.
 */
export function OneTimeLink({
  path,
  opens,
  title,
  children,
}: {
  /** A path of this server with its query, e.g. `/api/bench/results?run=7`. */
  path: string;
  /** `download`: saved as the file the server names; `tab`: shown in a new tab. */
  opens: 'download' | 'tab';
  title?: string;
  children: ReactNode;
}) {
  const trpc = useTRPC();
  const link = useMutation(trpc.auth.downloadLink.mutationOptions());
  const open = () => {
    // A tab opened at the click itself: one opened once the link has come back is no longer the
    // user's doing to a popup blocker.
    const tab = opens === 'tab' ? window.open('', '_blank') : null;
    link.mutate(
      { path },
      {
        onSuccess: ({ url }) => {
          if (tab === null) download(url);
          else {
            tab.opener = null;
            tab.location.href = url;
          }
        },
        onError: () => tab?.close(),
      },
    );
  };
  return (
    <>
      <button
        type="button"
        className="link-button"
        title={title}
        disabled={link.isPending}
        onClick={open}
      >
        {children}
      </button>
      {link.isError && (
        <span className="status status-error" role="alert">
          {link.error.message}
        </span>
      )}
    </>
  );
}

function download(url: string): void {
  const anchor = document.createElement('a');
  anchor.href = url;
  anchor.download = '';
  anchor.click();
}
