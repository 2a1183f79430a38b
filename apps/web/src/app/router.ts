import { useMemo, useSyncExternalStore } from 'react';
import { formatRoute, parseRoute, type Route } from './url-state';

/** A tiny History API router: the URL is the only source of truth for where the user is. */
const listeners = new Set<() => void>();

function notify(): void {
  for (const listener of listeners) listener();
}

function subscribe(listener: () => void): () => void {
  listeners.add(listener);
  if (listeners.size === 1) window.addEventListener('popstate', notify);
  return () => {
    listeners.delete(listener);
    if (listeners.size === 0) window.removeEventListener('popstate', notify);
  };
}

function currentLocation(): string {
  return window.location.pathname + window.location.search;
}

export type NavigationMode = 'push' | 'replace';

/** `push` between pages (back/forward walk them); `replace` for in-page state such as the step. */
export function navigate(route: Route, mode: NavigationMode = 'push'): void {
  const target = formatRoute(route);
  if (target === currentLocation()) return;
  if (mode === 'push') window.history.pushState(null, '', target);
  else window.history.replaceState(null, '', target);
  notify();
}

export function useRoute(): Route {
  const location = useSyncExternalStore(subscribe, currentLocation);
  return useMemo(() => {
    const url = new URL(location, window.location.origin);
    return parseRoute(url.pathname, url.search);
  }, [location]);
}
