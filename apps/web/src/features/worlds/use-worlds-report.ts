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
            if (event.type === 'progress') setProgress({ done: event.done, of: event.of });
            // Settled before the stream ends: its end would otherwise read as a missing report.
            else resolve(event.report);
          },
          onError: reject,
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
