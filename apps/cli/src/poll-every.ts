/**
 * Runs `read` every `ms` until stopped, one at a time (a slow read is not overlapped); a read that
 * fails is skipped, as the next one may succeed (a server busy for a moment).
 */
export function pollEvery(ms: number, read: () => Promise<void>): { stop(): void } {
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  const next = () => {
    timer = setTimeout(() => {
      read()
        .catch(() => undefined)
        .finally(() => {
          if (!stopped) next();
        });
    }, ms);
  };
  next();
  return {
    stop() {
      stopped = true;
      clearTimeout(timer);
    },
  };
}
