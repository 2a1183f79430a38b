/**
 * The page's half of its session. The cookie alone opens nothing: browsers send it to every port
 * of this host, so a page another program serves on 127.0.0.1 receives it too. The server also
 * asks for the session's proof, which only this origin's pages can read (localStorage is scoped by
 * scheme, host and port), so every request this app makes carries it. Names match
 * packages/api/src/auth/sessions.ts.
 */
const STORAGE_KEY = 'terrarium.sessionProof';
const HEADER = 'x-terrarium-session-proof';
const PARAMETER = 'session_proof';
const FRAGMENT_PREFIX = '#session-proof=';

function storage(): Storage | null {
  // Absent in a worker, and storage can be disabled: then the page simply is not logged in.
  try {
    return typeof localStorage === 'undefined' ? null : localStorage;
  } catch {
    return null;
  }
}

/** The proof this page holds, read at each request: a login in another tab changes it. */
export function sessionProof(): string | null {
  return storage()?.getItem(STORAGE_KEY) ?? null;
}

export function keepSessionProof(proof: string): void {
  storage()?.setItem(STORAGE_KEY, proof);
}

export function forgetSessionProof(): void {
  storage()?.removeItem(STORAGE_KEY);
}

/**
 * The owner's link lands on `…#session-proof=…` (request-gate.ts): keep the proof and take it out
 * of the address bar and history before anything renders.
 */
export function takeSessionProofFromLocation(): void {
  const { hash, pathname, search } = window.location;
  if (!hash.startsWith(FRAGMENT_PREFIX)) return;
  keepSessionProof(decodeURIComponent(hash.slice(FRAGMENT_PREFIX.length)));
  window.history.replaceState(window.history.state, '', `${pathname}${search}`);
}

/** Headers for fetch, XMLHttpRequest and the tRPC links. */
export function sessionHeaders(): Record<string, string> {
  const proof = sessionProof();
  return proof === null ? {} : { [HEADER]: proof };
}

/** The same headers on an upload's XMLHttpRequest (opened, not yet sent). */
export function sendSessionProof(request: XMLHttpRequest): void {
  for (const [header, value] of Object.entries(sessionHeaders())) {
    request.setRequestHeader(header, value);
  }
}

/** `url` with the proof as a query parameter: for what takes no headers (events, a download). */
export function withSessionProof(url: string): string {
  const proof = sessionProof();
  if (proof === null) return url;
  return `${url}${url.includes('?') ? '&' : '?'}${PARAMETER}=${encodeURIComponent(proof)}`;
}
