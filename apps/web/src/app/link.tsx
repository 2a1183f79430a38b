import type { MouseEvent, ReactNode } from 'react';
import { navigate } from './router';
import { formatRoute, type Route } from './url-state';

interface LinkProps {
  to: Route;
  children: ReactNode;
  className?: string;
  title?: string;
}

function isPlainLeftClick(event: MouseEvent): boolean {
  return event.button === 0 && !event.metaKey && !event.ctrlKey && !event.shiftKey && !event.altKey;
}

/** A real anchor (middle-click and copy-link work) that navigates in-app on a plain click. */
export function Link({ to, children, className, title }: LinkProps) {
  return (
    <a
      href={formatRoute(to)}
      className={className}
      title={title}
      onClick={(event) => {
        if (!isPlainLeftClick(event)) return;
        event.preventDefault();
        navigate(to);
      }}
    >
      {children}
    </a>
  );
}
