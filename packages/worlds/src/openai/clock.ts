/** Time, injected so the client reads no clock of its own and tests can see every wait. */
export interface Clock {
  /** Monotonic milliseconds. */
  now(): number;
  /** Milliseconds since the Unix epoch, to read HTTP dates in Retry-After. */
  epochMs(): number;
  /** Runs `callback` after `ms`; returns a function that cancels it. */
  setTimer(ms: number, callback: () => void): () => void;
}

export const systemClock: Clock = {
  now: () => performance.now(),
  epochMs: () => Date.now(),
  setTimer(ms, callback) {
    const timer = setTimeout(callback, ms);
    return () => clearTimeout(timer);
  },
};

/** Waits `ms`, or rejects with the signal's reason as soon as it aborts. */
export function sleep(clock: Clock, ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted === true) {
      reject(signal.reason);
      return;
    }
    const onAbort = () => {
      cancel();
      reject(signal?.reason);
    };
    const cancel = clock.setTimer(ms, () => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    });
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
