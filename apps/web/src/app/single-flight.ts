import { useMemo, useRef } from 'react';

export interface SingleFlight {
  /** True when nothing is on its way (and marks one as started); false for a second press. */
  take(): boolean;
  /** The request has come back: the next press may send again. */
  release(): void;
}

/**
 * One request at a time from a button or key. A mutation's `isPending` reaches the page a tick
 * after `mutate` (TanStack Query notifies on a later task), so a double click or a fast second Enter
 * would send twice: two queues made, or a 409 "already labeled" shown over the next item.
 */
export function useSingleFlight(): SingleFlight {
  const busy = useRef(false);
  return useMemo(
    () => ({
      take() {
        if (busy.current) return false;
        busy.current = true;
        return true;
      },
      release() {
        busy.current = false;
      },
    }),
    [],
  );
}
