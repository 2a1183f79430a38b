import type { BrowserContext, Page, Request } from '@playwright/test';

/** Everything a hostile payload could do that leaves a trace outside the DOM. */
export interface PageWatch {
  /**
   * Requests to anything but the app's own origin (or data:, blob:, about:) that the Content Security
   * Policy did not stop before they left the browser.
   */
  foreignRequests(): string[];
  dialogs: string[];
  consoleErrors: string[];
  pageErrors: string[];
}

const LOCAL_SCHEMES = new Set(['data:', 'blob:', 'about:']);

export function watchPage(context: BrowserContext, page: Page, appOrigin: string): PageWatch {
  const foreign: Request[] = [];
  const watch: PageWatch = {
    // Playwright reports a request the policy blocks too, failing at once with the reason 'csp'.
    foreignRequests: () =>
      foreign
        .filter((request) => request.failure()?.errorText !== 'csp')
        .map((request) => request.url()),
    dialogs: [],
    consoleErrors: [],
    pageErrors: [],
  };
  context.on('request', (request) => {
    const url = new URL(request.url());
    if (!LOCAL_SCHEMES.has(url.protocol) && url.origin !== appOrigin) foreign.push(request);
  });
  page.on('dialog', (dialog) => {
    watch.dialogs.push(`${dialog.type()}: ${dialog.message()}`);
    void dialog.dismiss();
  });
  page.on('console', (message) => {
    if (message.type() === 'error') watch.consoleErrors.push(message.text());
  });
  page.on('pageerror', (error) => watch.pageErrors.push(error.message));
  return watch;
}

/** `window.__pwned` in every frame of the page: a payload that ran would have set it. */
export async function pwnedFlags(page: Page): Promise<unknown[]> {
  const flags: unknown[] = [];
  for (const frame of page.frames()) {
    flags.push(await frame.evaluate(() => Reflect.get(window, '__pwned')));
  }
  return flags;
}
