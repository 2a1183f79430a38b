import type { Page } from '@playwright/test';

/**
 * The status of a GET of `path` made from the page the way the app makes its requests: beside the
 * cookie, the session's proof the page keeps (apps/web/src/app/session-proof.ts).
 */
export function statusFromPage(page: Page, path: string): Promise<number> {
  return page.evaluate(async (target) => {
    const proof = localStorage.getItem('terrarium.sessionProof');
    const headers: Record<string, string> =
      proof === null ? {} : { 'x-terrarium-session-proof': proof };
    return (await fetch(target, { headers })).status;
  }, path);
}
