import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import type { WorldsReport } from '@terrarium/api';
import { useTRPC, useTRPCClient } from '../../app/trpc';

export interface WorldsRequest {
  dataset: string;
  maxMismatches: number;
  perFamily: number;
  outcome: 'mismatch';
}

/** Worlds replayed so far while a report is measured. */
export interface WorldsProgress {
  done: number;
  of: number;
}

/**
 * The sufficiency report of a dataset's worlds, measured through the server's event stream so the
 * page can say how far the replay is (thousands of worlds take many seconds). Kept like a query:
 * cached per request until the dataset changes, refetched on demand.
 */
export function useWorldsReport(request: WorldsRequest, enabled: boolean) {
  const trpc = useTRPC();
  const client = useTRPCClient();
  const [progress, setProgress] = useState<WorldsProgress | null>(null);
  const query = useQuery({
    // The query's own key, so the report is cached per request as the plain query would be.
    queryKey: trpc.worlds.sufficiency.queryKey(request),
    queryFn: ({ signal }) =>
      new Promise<WorldsReport>((resolve, reject) => {
        setProgress(null);
        const subscription = client.worlds.sufficiencyEvents.subscribe(request, {
          onData: (event) => {
            if (event.type === 'progress') {
              setProgress({ done: event.done, of: event.of });
              return;
            }
            // Settled before the stream is closed: its end would otherwise read as no report.
            resolve(event.report);
            subscription.unsubscribe();
          },
          onError: reject,
          // The event stream reconnects by itself after an error it deems passing (a server
          // error, a lost connection), and would replay the dataset again and again: the page
          // shows the error instead, as a query would.
          onConnectionStateChange: (state) => {
            if (state.state !== 'connecting' || state.error === null) return;
            subscription.unsubscribe();
            reject(state.error);
          },
          onComplete: () => reject(new Error('the server ended the replay without a report')),
        });
        signal.addEventListener('abort', () => {
          subscription.unsubscribe();
          reject(new Error('the replay was stopped'));
        });
      }),
    enabled,
    // Every transition is replayed to measure it: kept until the dataset changes (the page checks).
    staleTime: Infinity,
  });
  return { query, progress };
}
