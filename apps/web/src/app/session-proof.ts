import {
  LOCAL_OWNER_ID,
  OWNER_LINK_REFUSED_FRAGMENT,
  SESSION_PROOF_FRAGMENT,
  SESSION_PROOF_HEADER,
  SESSION_PROOF_PARAMETER,
} from '@terrarium/schema';

/**
 * The page's half of its session. The cookie alone opens nothing: browsers send it to every port
 * of this host, so a page another program serves on 127.0.0.1 receives it too. The server also
 * asks for the session's proof, which only this origin's pages can read (localStorage is scoped by
 * scheme, host and port), so every request this app makes carries it.
 */
const STORAGE_KEY = 'terrarium.sessionProof';
const FRAGMENT_PREFIX = `#${SESSION_PROOF_FRAGMENT}=`;

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

let ownerLinkRefused = false;

/**
 * The owner's link lands on `…#session-proof=…` (request-gate.ts): take the proof out of the address
 * bar, then keep it only if it is what the owner's link hands over, a session of the local owner.
 * Any page can send a browser to `…#session-proof=…`: a program on another port of this host that
 * logged in with an account of its own could set that account's cookie here and send its proof
 * along, and the browser would work as that account (walk 42). A local-owner session needs the
 * program token, which such a program does not have. A proof the fragment brings that is not
 * kept leaves the page's own as it was (an old history entry, too). A link that could not log in
 * lands on `…#owner-link-refused`: taken out of the address bar as well (a reload or a bookmark
 * would repeat the message), and remembered for the login page. Resolves once settled.
 */
export async function readOwnerLinkFragment(): Promise<void> {
  const { hash, pathname, search } = window.location;
  const refused = hash === `#${OWNER_LINK_REFUSED_FRAGMENT}`;
  if (!refused && !hash.startsWith(FRAGMENT_PREFIX)) return;
  window.history.replaceState(window.history.state, '', `${pathname}${search}`);
  ownerLinkRefused = refused;
  if (refused) return;
  const offered = decodeURIComponent(hash.slice(FRAGMENT_PREFIX.length));
  if (await isLocalOwnerProof(offered)) keepSessionProof(offered);
}

/**
 * Whether the page was opened by an owner's link that could not log in; said once (the login page
 * reads it as it opens), so a later logout in this page load does not repeat it.
 */
export function takeOwnerLinkRefusal(): boolean {
  const refused = ownerLinkRefused;
  ownerLinkRefused = false;
  return refused;
}

/**
 * Calls `listener` when another tab of this origin logs in or out: the proof in localStorage
 * changed under this page, so what it shows belongs to a session it no longer sends. Returns the
 * unsubscribe.
 */
export function onSessionProofChange(listener: () => void): () => void {
  const onStorage = (event: StorageEvent) => {
    // A null key: the whole storage was cleared.
    if (event.key === STORAGE_KEY || event.key === null) listener();
  };
  window.addEventListener('storage', onStorage);
  return () => window.removeEventListener('storage', onStorage);
}

async function isLocalOwnerProof(proof: string): Promise<boolean> {
  try {
    const response = await fetch('/trpc/auth.whoami', {
      headers: { [SESSION_PROOF_HEADER]: proof },
    });
    if (!response.ok) return false;
    const body: unknown = await response.json();
    const principal = field(field(body, 'result'), 'data');
    return field(principal, 'kind') === 'user' && field(principal, 'userId') === LOCAL_OWNER_ID;
  } catch {
    // No answer: the page starts without it, and the login page says how to get in.
    return false;
  }
}

function field(value: unknown, key: string): unknown {
  return typeof value === 'object' && value !== null ? Reflect.get(value, key) : undefined;
}

/** Headers for fetch, XMLHttpRequest and the tRPC links. */
export function sessionHeaders(): Record<string, string> {
  const proof = sessionProof();
  return proof === null ? {} : { [SESSION_PROOF_HEADER]: proof };
}

/** The same headers on an upload's XMLHttpRequest (opened, not yet sent). */
export function sendSessionProof(request: XMLHttpRequest): void {
  for (const [header, value] of Object.entries(sessionHeaders())) {
    request.setRequestHeader(header, value);
  }
}

/**
 * `url` with the proof as a query parameter: for an event stream alone (EventSource sends no
 * headers), whose URL the browser keeps nowhere. What the page navigates to takes a one-time link
 * instead (one-time-link.tsx); the server reads the query's proof on event streams only.
 */
export function withSessionProof(url: string): string {
  const proof = sessionProof();
  if (proof === null) return url;
  return `${url}${url.includes('?') ? '&' : '?'}${SESSION_PROOF_PARAMETER}=${encodeURIComponent(proof)}`;
}
