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
 * Presses each of `keys` in turn and returns per press: the time from keydown to the counter's
 * change in the DOM, to the next paint, and to the step's own content being painted (which can
 * wait for a window of steps from the server). A key `-` presses nothing: it times keydown to the
 * next paint on a page with nothing to do, the floor any page's figure contains.
 *
 * A person's keys land anywhere in a frame, and the paint comes at the next frame's end, so the
 * presses are spread over the frame: each waits for a frame to start, then 0, 1, … 15 ms (in
 * turn) before pressing. A press right at a frame's start waits a whole frame for the next
 * however little the page does; one late in a frame shows whether the page's work fits.
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
  const intoFrame = (ms) => new Promise((done) => requestAnimationFrame(() => setTimeout(done, ms)));
  const shownStep = () => document.querySelector('article[aria-label="Step ' + /^Step (\\d+) \\//.exec(counter().textContent)[1] + '"]') !== null;
  const results = [];
  for (const [press, key] of ${JSON.stringify(keys)}.entries()) {
    await intoFrame(press % 16);
    const before = counter().textContent;
    const startedAt = performance.now();
    if (key === '-') {
      await afterPaint();
      const paintedAt = performance.now() - startedAt;
      results.push([0, paintedAt, paintedAt]);
      continue;
    }
    const changed = whenTrue(() => counter().textContent !== before, key + ' moving the counter');
    window.dispatchEvent(new KeyboardEvent('keydown', { key, bubbles: true, cancelable: true }));
    const counterAt = await changed;
    await afterPaint();
    const paintedAt = performance.now();
    // The step's content was in that frame, or comes later (its window still loading).
    let contentPaintedAt = paintedAt;
    if (!shownStep()) {
      await whenTrue(shownStep, 'the step showing');
      await afterPaint();
      contentPaintedAt = performance.now();
    }
    results.push([counterAt - startedAt, paintedAt - startedAt, contentPaintedAt - startedAt]);
  }
  return results;
})()`;
}
