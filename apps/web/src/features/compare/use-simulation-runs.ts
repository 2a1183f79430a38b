import type { SimulationResult } from '@terrarium/schema';
import { useCallback, useEffect, useRef, useState } from 'react';
import { useTRPCClient } from '../../app/trpc';
import { isBrowserSimSpec } from '../models/browser-sim-spec';

export type SimulationRun =
  | { status: 'running' }
  | { status: 'done'; result: SimulationResult }
  | { status: 'error'; message: string };

/** The API refuses more than this many transitions per run. */
export const MAX_SIMULATED_STEPS = 500;

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/**
 * Runs simulators over one trajectory, all in parallel, keeping each one's state apart so one
 * slow or failing endpoint never hides the others. A new run of a simulator cancels its last one.
 */
export function useSimulationRuns(trajectoryId: string) {
  const client = useTRPCClient();
  const [runs, setRuns] = useState<ReadonlyMap<string, SimulationRun>>(new Map());
  const controllers = useRef(new Map<string, AbortController>());

  useEffect(() => {
    const live = controllers.current;
    return () => {
      for (const controller of live.values()) controller.abort();
      live.clear();
    };
  }, []);

  const run = useCallback(
    (sims: readonly string[], maxSteps: number) => {
      for (const sim of sims) {
        controllers.current.get(sim)?.abort();
        const controller = new AbortController();
        controllers.current.set(sim, controller);
        const settle = (state: SimulationRun) => {
          if (controller.signal.aborted) return;
          controllers.current.delete(sim);
          setRuns((previous) => new Map(previous).set(sim, state));
        };
        setRuns((previous) => new Map(previous).set(sim, { status: 'running' }));
        const simulation = isBrowserSimSpec(sim)
          ? // Loaded on first use: onnxruntime-web stays out of the Compare page's own chunk.
            import('../models/simulate-in-browser').then(
              async ({ loadTrajectoryForBrowser, simulateInBrowser, stepNeighbors }) =>
                simulateInBrowser(await loadTrajectoryForBrowser(client, trajectoryId), {
                  maxSteps,
                  // A v2 model reads the server's retrieved neighbors, then decodes here.
                  neighbors: stepNeighbors(client, trajectoryId),
                  signal: controller.signal,
                }),
            )
          : client.simulate.run.mutate(
              { trajectoryId, sim, maxSteps },
              { signal: controller.signal },
            );
        simulation.then(
          (result) => settle({ status: 'done', result }),
          (error: unknown) => settle({ status: 'error', message: messageOf(error) }),
        );
      }
    },
    [client, trajectoryId],
  );

  return { runs, run };
}
