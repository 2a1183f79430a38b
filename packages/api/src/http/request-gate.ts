import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Store } from '@terrarium/db';
import {
  DOWNLOAD_CODE_PARAMETER,
  OWNER_LINK_REFUSED_FRAGMENT,
  SESSION_PROOF_FRAGMENT,
  SESSION_PROOF_HEADER,
  SESSION_PROOF_PARAMETER,
} from '@terrarium/schema';
import {
  principalOfSession,
  sessionCookieName,
  sessionProof,
  startSession,
} from '../auth/sessions';
import { createDownloadLinks, downloadTarget } from '../auth/download-links';
import { sameSecret } from '../auth/secret';
import type { Principal } from '../trpc';
import { readCookies, setCookie } from './cookies';
import { QUERY_TOKEN_ROUTES } from './route-policy';

export interface GateOptions {
  store: Store;
  /** The program token: `Authorization: Bearer <token>`. */
  token: string;
  /** Host names (without port) a request may name in its Host header. */
  allowedHosts: readonly string[];
  /**
   * The server listens on loopback only: pages get a local-owner session while no account exists.
   * Off for any other bind, where the UI always needs a login.
   */
  localOwner: boolean;
  now?: () => Date;
}

export type Admission =
  | { ok: true; principal: Principal; sessionToken: string | null }
  | { ok: false; status: 400 | 401 | 403 | 421; message: string };

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);
/** The query parameter of the link that logs the local owner's browser in (`/?token=…`). */
export const PAGE_TOKEN_PARAMETER = 'token';

/** The link `serve` prints for its own user: the page at `url`, logged in as the local owner. */
export function localOwnerLink(url: string, token: string): string {
  const link = new URL(url);
  link.searchParams.set(PAGE_TOKEN_PARAMETER, token);
  return link.toString();
}
export const LOOPBACK_HOSTS: readonly string[] = ['localhost', '127.0.0.1', '::1', '[::1]'];

/** The session cookie's name for the port the request came in on (sessions.ts). */
export function cookieNameOf(request: IncomingMessage): string {
  return sessionCookieName(request.socket.localPort);
}

/** `example.test:4317` → `example.test`, `[::1]:80` → `[::1]`; lower case. */
export function hostName(hostHeader: string): string {
  const host = hostHeader.trim().toLowerCase();
  if (host.startsWith('[')) {
    const end = host.indexOf(']');
    return end < 0 ? host : host.slice(0, end + 1);
  }
  const colon = host.indexOf(':');
  return colon < 0 ? host : host.slice(0, colon);
}

/** A configured name as the Host header spells it: IPv6 addresses in brackets, no port. */
export function normalHostName(name: string): string {
  const bare = name.trim().toLowerCase();
  return bare.includes(':') && !bare.startsWith('[') && bare.split(':').length > 2
    ? `[${bare}]`
    : hostName(bare);
}

function oneHeader(request: IncomingMessage, name: string): string | undefined {
  const value = request.headers[name];
  return Array.isArray(value) ? value[0] : value;
}

/** Same-origin or not a browser: anything else a browser sent on another site's behalf. */
function checkOrigin(request: IncomingMessage): Admission | null {
  const site = oneHeader(request, 'sec-fetch-site');
  // same-site includes another port of localhost: a different origin all the same.
  if (site === 'cross-site' || site === 'same-site') {
    return { ok: false, status: 403, message: 'cross-origin requests are refused' };
  }
  const origin = oneHeader(request, 'origin');
  if (origin !== undefined) {
    const host = oneHeader(request, 'host') ?? '';
    if (origin !== `http://${host}` && origin !== `https://${host}`) {
      return { ok: false, status: 403, message: 'cross-origin requests are refused' };
    }
  }
  return null;
}

/**
 * The one gate of every request: Host (DNS rebinding), then Origin / Sec-Fetch-Site (cross-site
 * requests, including CORS-simple ones that need no preflight), then who is calling (bearer token
 * or session cookie). Routes decide afterwards what that principal may do.
 */
export function createRequestGate(options: GateOptions) {
  const allowed = new Set(
    [...options.allowedHosts, ...(options.localOwner ? LOOPBACK_HOSTS : [])].map(normalHostName),
  );
  const now = options.now ?? (() => new Date());
  const downloadLinks = createDownloadLinks(() => now().getTime());

  /** Host check alone: every request, pages and assets included (a rebinding page reads GETs). */
  function checkHost(request: IncomingMessage): Admission | null {
    const host = oneHeader(request, 'host');
    if (host === undefined || !allowed.has(hostName(host))) {
      return {
        ok: false,
        status: 421,
        message: 'this server does not answer for that host name (see --allowed-host)',
      };
    }
    return null;
  }

  async function admit(request: IncomingMessage): Promise<Admission> {
    const refused = checkHost(request) ?? checkOrigin(request);
    if (refused) return refused;
    const authorization = oneHeader(request, 'authorization');
    if (authorization !== undefined) {
      const match = /^Bearer\s+(\S+)\s*$/i.exec(authorization);
      if (!match?.[1] || !sameSecret(match[1], options.token)) {
        return { ok: false, status: 401, message: 'wrong or malformed bearer token' };
      }
      return { ok: true, principal: { kind: 'program' }, sessionToken: null };
    }
    const queryToken = tokenInQuery(request);
    if (queryToken !== null) {
      if (!sameSecret(queryToken, options.token)) {
        return { ok: false, status: 401, message: 'wrong token in the URL' };
      }
      return { ok: true, principal: { kind: 'program' }, sessionToken: null };
    }
    const downloadCode = downloadCodeOf(request);
    if (downloadCode !== null) return admitDownload(request, downloadCode);
    // A cookie reaches every port of this host (walk 41, S2): without the proof only this origin's
    // pages hold, it is a stranger's, or a copy another local page took; it opens nothing. Of
    // several (one tossed in by such a page), the one the proof matches is the page's own.
    const proof = proofOf(request);
    const sessionToken =
      proof === null
        ? undefined
        : readCookies(request, cookieNameOf(request)).find((value) =>
            sameSecret(proof, sessionProof(options.token, value)),
          );
    // No cookie, or none proven: anonymous, and no session of this caller's to end at a logout.
    if (sessionToken === undefined) {
      return { ok: true, principal: { kind: 'anonymous' }, sessionToken: null };
    }
    const principal = await principalOfSession(options.store, sessionToken, {
      localOwnerAllowed: options.localOwner,
      now: now(),
    });
    if (principal === null) return { ok: true, principal: { kind: 'anonymous' }, sessionToken };
    // A cookie rides along on any request the browser makes; a state change on its strength
    // needs the browser's word that the page is ours (modern browsers always send one of these).
    const method = request.method ?? 'GET';
    if (
      !SAFE_METHODS.has(method) &&
      oneHeader(request, 'origin') === undefined &&
      oneHeader(request, 'sec-fetch-site') !== 'same-origin'
    ) {
      return { ok: false, status: 403, message: 'a browser request without an Origin is refused' };
    }
    return { ok: true, principal, sessionToken };
  }

  /** A one-time link (download-links.ts): the session it was issued to, for its path, once. */
  async function admitDownload(request: IncomingMessage, code: string): Promise<Admission> {
    const target = downloadTarget(new URL(request.url ?? '/', 'http://localhost'));
    const sessionToken = downloadLinks.redeem(code, target);
    const principal =
      sessionToken === null
        ? null
        : await principalOfSession(options.store, sessionToken, {
            localOwnerAllowed: options.localOwner,
            now: now(),
          });
    if (principal === null) {
      return {
        ok: false,
        status: 401,
        message:
          'this link was for one download, within a minute, while you were logged in: start it again from the page',
      };
    }
    return { ok: true, principal, sessionToken };
  }

  /**
   * For page loads on a loopback server with no accounts: the link `serve` prints
   * (`/?token=<program token>`, any page) gives the browser a local-owner session, then sends it
   * on to the same page without the token (out of the address bar and history), the session's
   * proof in the fragment (`#session-proof=…`: never sent to a server; the page keeps it). Only the link
   * does: any other user of a shared machine can reach loopback too, but cannot read the token
   * (mode 0600, and `serve` prints it to its own user). A link that cannot log in (a wrong token,
   * accounts exist now, a server off loopback) is sent on too, marked `#owner-link-refused` for
   * the login page to explain. True when the response was answered.
   */
  async function offerLocalOwnerSession(
    request: IncomingMessage,
    response: ServerResponse,
  ): Promise<boolean> {
    if (request.method !== 'GET' || oneHeader(request, 'sec-fetch-dest') === 'iframe') return false;
    const url = new URL(request.url ?? '/', 'http://localhost');
    const offered = url.searchParams.get(PAGE_TOKEN_PARAMETER);
    if (offered === null) return false;
    const accepted =
      options.localOwner &&
      sameSecret(offered, options.token) &&
      (await options.store.countUsers()) === 0;
    let fragment = OWNER_LINK_REFUSED_FRAGMENT;
    if (accepted) {
      const session = await startSession(options.store, null, now());
      setCookie(response, cookieNameOf(request), session.token, session.expiresAt);
      fragment = `${SESSION_PROOF_FRAGMENT}=${sessionProof(options.token, session.token)}`;
    }
    url.searchParams.delete(PAGE_TOKEN_PARAMETER);
    // One leading slash: `//host/…` would send the browser to another site.
    const path = `/${url.pathname.replace(/^\/+/, '')}`;
    response.writeHead(303, {
      location: `${path}${url.search}#${fragment}`,
      'cache-control': 'no-store',
    });
    response.end();
    return true;
  }

  return { downloadLinks, checkHost, checkOrigin, admit, offerLocalOwnerSession };
}

export type RequestGate = ReturnType<typeof createRequestGate>;

/** The session proof: its header, or on a tRPC event stream (live progress) its query parameter. */
function proofOf(request: IncomingMessage): string | null {
  const header = oneHeader(request, SESSION_PROOF_HEADER);
  if (header !== undefined) return header;
  // In the query only for a tRPC subscription's event stream, which EventSource opens with no
  // headers of the page's choosing: its URL goes into no history or download list. Whatever a page navigates to (a
  // download, a file in a tab) takes a one-time link instead.
  if (request.method !== 'GET' || !acceptsEventStream(request)) return null;
  const url = new URL(request.url ?? '/', 'http://localhost');
  return url.pathname.startsWith('/trpc/') ? url.searchParams.get(SESSION_PROOF_PARAMETER) : null;
}

function acceptsEventStream(request: IncomingMessage): boolean {
  return (oneHeader(request, 'accept') ?? '').split(',').some((type) => {
    return type.split(';')[0]?.trim().toLowerCase() === 'text/event-stream';
  });
}

/** A one-time link's code: only on a GET, the way a browser follows a link. */
function downloadCodeOf(request: IncomingMessage): string | null {
  if (request.method !== 'GET') return null;
  return new URL(request.url ?? '/', 'http://localhost').searchParams.get(DOWNLOAD_CODE_PARAMETER);
}

function tokenInQuery(request: IncomingMessage): string | null {
  const url = new URL(request.url ?? '/', 'http://localhost');
  if (!QUERY_TOKEN_ROUTES.has(url.pathname)) return null;
  return url.searchParams.get('token');
}
