import { randomBytes } from 'node:crypto';
import { DOWNLOAD_CODE_PARAMETER, MODEL_URL_PREFIX, RUN_RESULTS_PATH } from '@terrarium/schema';

/** A link lasts a minute: long enough for the browser to follow it, too short to be worth keeping. */
export const DOWNLOAD_LINK_TTL_MS = 60_000;
/** Links waiting to be followed, server-wide; the oldest make room (each is a minute's anyway). */
const MAX_WAITING = 1_000;
/**
 * Links waiting per session: a session that asks for more gives up its own oldest, so one
 * account cannot push other users' pending links out of the server-wide room.
 */
const MAX_WAITING_PER_SESSION = 16;

/**
 * One-time links for what a page opens by navigating (a download, a model's config in a tab),
 * where a browser sends no headers of the page's choosing. Such a URL is kept by the browser (its
 * download list, its history, "Copy link address"), so it carries no lasting secret: the page asks
 * for a link (with its session's proof in the header), and the link's code opens that one path and
 * query, once, within a minute, as that session. A session that has ended since opens nothing.
 */
/** What a page opens by navigating, and so by a one-time link: a download, a model file. */
export function takesDownloadLink(pathname: string): boolean {
  return pathname === RUN_RESULTS_PATH || pathname.startsWith(MODEL_URL_PREFIX);
}

/** What a code opens: the path and its query (the code's own parameter aside), one spelling. */
export function downloadTarget(url: URL): string {
  const query = new URLSearchParams(url.searchParams);
  query.delete(DOWNLOAD_CODE_PARAMETER);
  const search = query.toString();
  return search === '' ? url.pathname : `${url.pathname}?${search}`;
}

export interface DownloadLinks {
  /** A new code for `target` (`downloadTarget`) on behalf of the browser session `sessionToken`. */
  issue(sessionToken: string, target: string): string;
  /** The session a code stands for, if it is for `target` and still waiting; it is used up. */
  redeem(code: string, target: string): string | null;
}

export function createDownloadLinks(now: () => number = Date.now): DownloadLinks {
  const waiting = new Map<string, { sessionToken: string; target: string; expiresAt: number }>();
  return {
    issue(sessionToken, target) {
      const at = now();
      let own = [...waiting].filter(([, link]) => link.sessionToken === sessionToken).length;
      for (const [code, link] of waiting) {
        const mine = link.sessionToken === sessionToken;
        if (
          link.expiresAt <= at ||
          waiting.size >= MAX_WAITING ||
          (mine && own >= MAX_WAITING_PER_SESSION)
        ) {
          waiting.delete(code);
          if (mine) own -= 1;
        }
      }
      const code = randomBytes(24).toString('base64url');
      waiting.set(code, { sessionToken, target, expiresAt: at + DOWNLOAD_LINK_TTL_MS });
      return code;
    },
    redeem(code, target) {
      const link = waiting.get(code);
      if (link === undefined) return null;
      waiting.delete(code);
      return link.target === target && link.expiresAt > now() ? link.sessionToken : null;
    },
  };
}
