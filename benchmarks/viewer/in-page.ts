/**
 * Scripts that run inside the page. They are plain JavaScript strings, not functions: a function
 * would be serialized after tsx's transform, which can add helpers the page does not have.
 */

/** After the next frame has been painted: a task queued from requestAnimationFrame runs after paint. */
const AFTER_PAINT = `() => new Promise((done) => requestAnimationFrame(() => {
  const channel = new MessageChannel();
  channel.port1.onmessage = () => done();
  channel.port2.postMessage(0);
}))`;

/**
 * Installed before the app loads: `window.__firstStep` resolves to the times since navigation start
 * at which step 1 (its counter and its action) was in the DOM and then painted, with where the time
 * went: the document's DOMContentLoaded, the first API request and the last API answer before it.
 */
export const RECORD_FIRST_STEP = `window.__firstStep = new Promise((resolve) => {
  const afterPaint = ${AFTER_PAINT};
  const observer = new MutationObserver(() => {
    const counter = document.querySelector('[data-testid="step-counter"]');
    const step = document.querySelector('article.step-view [data-testid="step-action"]');
    if (!counter || !step || !/^Step \\d+ \\//.test(counter.textContent || '')) return;
    observer.disconnect();
    const counterAt = performance.now();
    afterPaint().then(() => {
      const navigation = performance.getEntriesByType('navigation')[0];
      const api = performance
        .getEntriesByType('resource')
        .filter((entry) => entry.name.includes('/trpc/') && entry.responseEnd <= counterAt);
      resolve({
        counterAt,
        paintedAt: performance.now(),
        domContentLoadedAt: navigation ? navigation.domContentLoadedEventEnd : -1,
        firstApiRequestAt: Math.min(...api.map((entry) => entry.startTime)),
        lastApiResponseAt: Math.max(...api.map((entry) => entry.responseEnd)),
      });
    });
  });
  observer.observe(document, { subtree: true, childList: true, characterData: true });
})`;

/**
 * Presses each of `keys` in turn, each after the previous step was painted, and returns per press:
 * the time from keydown to the counter's change in the DOM, to the next paint, and to the step's
 * own content being painted (which can wait for a window of steps from the server).
 */
export function stepScript(keys: readonly string[]): string {
  return `(async () => {
  const afterPaint = ${AFTER_PAINT};
  const counter = () => document.querySelector('[data-testid="step-counter"]');
  // A press that changes nothing would otherwise wait forever: give up after 10 s, saying where.
  const whenTrue = (test, what) => new Promise((done, fail) => {
    if (test()) return done(performance.now());
    const observer = new MutationObserver(() => {
      if (test()) { observer.disconnect(); clearTimeout(timer); done(performance.now()); }
    });
    const timer = setTimeout(() => {
      observer.disconnect();
      fail(new Error(what + ' did not happen within 10 s; the counter reads ' + counter().textContent));
    }, 10000);
    observer.observe(document.body, { subtree: true, childList: true, characterData: true });
  });
  const results = [];
  for (const key of ${JSON.stringify(keys)}) {
    const before = counter().textContent;
    const startedAt = performance.now();
    const changed = whenTrue(() => counter().textContent !== before, key + ' moving the counter');
    window.dispatchEvent(new KeyboardEvent('keydown', { key, bubbles: true, cancelable: true }));
    const counterAt = await changed;
    await afterPaint();
    const paintedAt = performance.now();
    const shown = /^Step (\\d+) \\//.exec(counter().textContent)[1];
    const contentAt = await whenTrue(() => document.querySelector('article[aria-label="Step ' + shown + '"]') !== null, 'step ' + shown + ' showing');
    if (contentAt > paintedAt) await afterPaint();
    const contentPaintedAt = contentAt > paintedAt ? performance.now() : paintedAt;
    results.push([counterAt - startedAt, paintedAt - startedAt, contentPaintedAt - startedAt]);
  }
  return results;
})()`;
}
