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
  const link = useMutation(
    trpc.auth.downloadLink.mutationOptions({ onSuccess: ({ url }) => follow(url, opens) }),
  );
  return (
    <>
      <button
        type="button"
        className="link-button"
        title={title}
        disabled={link.isPending}
        onClick={() => link.mutate({ path })}
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

function follow(url: string, opens: 'download' | 'tab'): void {
  const anchor = document.createElement('a');
  anchor.href = url;
  if (opens === 'download') anchor.download = '';
  else {
    anchor.target = '_blank';
    anchor.rel = 'noopener';
  }
  anchor.click();
}
