import type { SimulatedStep, SimulationResult } from '@terrarium/schema';
import { useCallback, useEffect, useRef, useState } from 'react';
import { useTRPCClient } from '../../app/trpc';
import { providerFallbackNotice } from './provider-fallback';
import {
  loadTrajectoryForBrowser,
  simulateInBrowser,
  stepNeighbors,
  type BrowserSimulationOptions,
} from './simulate-in-browser';

export type BrowserRun =
  | { status: 'running' }
  | { status: 'done'; result: SimulationResult }
  /** Stopped by its user; `steps` keeps what it predicted. */
  | { status: 'stopped' }
  | { status: 'error'; message: string };

export interface BrowserSimulation {
  run: BrowserRun | null;
  /** Steps predicted so far, while the run goes on. */
  steps: readonly SimulatedStep[];
  /** Why the run is not on the provider asked for (WebGPU asked, wasm used), or null. */
  fallback: string | null;
  start(
    options?: Omit<BrowserSimulationOptions, 'signal' | 'onStep' | 'neighbors' | 'onModel'>,
  ): void;
  stop(): void;
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/**
 * Runs the ONNX model in this browser over a stored trajectory, step by step (see
 * `simulateInBrowser`); a new start cancels the last run, and so does leaving the page.
 */
export function useBrowserSimulation(trajectoryId: string): BrowserSimulation {
  const client = useTRPCClient();
  const [run, setRun] = useState<BrowserRun | null>(null);
  const [steps, setSteps] = useState<readonly SimulatedStep[]>([]);
  const [fallback, setFallback] = useState<string | null>(null);
  const controller = useRef<AbortController | null>(null);

  useEffect(() => () => controller.current?.abort(), []);

  const start = useCallback(
    (
      options: Omit<BrowserSimulationOptions, 'signal' | 'onStep' | 'neighbors' | 'onModel'> = {},
    ) => {
      controller.current?.abort();
      const abort = new AbortController();
      controller.current = abort;
      setRun({ status: 'running' });
      setSteps([]);
      setFallback(null);
      loadTrajectoryForBrowser(client, trajectoryId)
        .then((trajectory) =>
          simulateInBrowser(trajectory, {
            ...options,
            neighbors: stepNeighbors(client, trajectoryId),
            signal: abort.signal,
            // Said as the playground says it (walk 46: WebGPU asked, wasm used, nothing said).
            onModel: ({ asked, executionProvider, fallbackReason }) => {
              if (abort.signal.aborted) return;
              setFallback(providerFallbackNotice(asked, executionProvider, fallbackReason));
            },
            onStep: (step) => {
              if (!abort.signal.aborted) setSteps((previous) => [...previous, step]);
            },
          }),
        )
        .then(
          (result) => {
            if (!abort.signal.aborted) setRun({ status: 'done', result });
          },
          (error: unknown) => {
            if (!abort.signal.aborted) setRun({ status: 'error', message: messageOf(error) });
          },
        );
    },
    [client, trajectoryId],
  );

  const stop = useCallback(() => {
    controller.current?.abort();
    setRun((previous) => (previous?.status === 'running' ? { status: 'stopped' } : previous));
  }, []);

  return { run, steps, fallback, start, stop };
}
