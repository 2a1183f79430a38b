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

const FRAME_READ_MS = 5_000;

/**
 * `window.__pwned` in every frame of the page: a payload that ran would have set it. A frame that
 * is being replaced (the renderer remounts its iframe) can leave an evaluate waiting on a document
 * that never gets a context, so each read is bounded and the frames are listed afresh until every
 * one of them answered; a frame that never answers still fails the test, with its URL.
 */
export async function pwnedFlags(page: Page, minFrames = 1): Promise<unknown[]> {
  let lastSilent = '';
  for (let attempt = 0; attempt < 20; attempt++) {
    const reads = page
      .frames()
      // A frame whose URL is still empty never committed a document (Chromium leaves some srcdoc
      // frames of remounted sandboxed iframes so): no document, nothing that could have run, and an
      // evaluate there waits for ever.
      .filter((frame) => !frame.isDetached() && frame.url() !== '')
      .map(async (frame) => {
        let timer: NodeJS.Timeout | undefined;
        const timeout = new Promise<{ silent: string }>((resolve) => {
          timer = setTimeout(() => resolve({ silent: frame.url() }), FRAME_READ_MS);
        });
        const read = frame
          .evaluate(() => Reflect.get(window, '__pwned'))
          .then((flag: unknown) => ({ flag }))
          .catch(() => ({ silent: frame.url() }));
        const answer = await Promise.race([read, timeout]);
        clearTimeout(timer);
        return answer;
      });
    const answers = await Promise.all(reads);
    const silent = answers.flatMap((answer) => ('silent' in answer ? [answer.silent] : []));
    if (silent.length === 0 && answers.length >= minFrames)
      return answers.map((answer) => ('flag' in answer ? answer.flag : null));
    lastSilent = silent.length > 0 ? silent.join(', ') : `only ${answers.length} frame(s) loaded`;
    await page.waitForTimeout(500);
  }
  throw new Error(`frames never answered: ${lastSilent}`);
}
