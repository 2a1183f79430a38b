import { countTransitions, type SimulatedStep, type SimulationResult } from '@terrarium/schema';
import { useCallback, useEffect, useRef, useState } from 'react';
import { useTRPCClient } from '../../app/trpc';
import { isBrowserSimSpec } from '../models/browser-sim-spec';
import { StreamSlots } from './stream-slots';

export type SimulationRun =
  /** `waiting`: in line for one of the page's event streams (`MAX_SERVER_STREAMS`). */
  | { status: 'running'; waiting: boolean; startedAt: number; done: number; total: number | null }
  | { status: 'done'; result: SimulationResult }
  /** Stopped by its user: the steps simulated until then, of `total`. */
  | { status: 'stopped'; result: SimulationResult; total: number | null }
  | { status: 'error'; message: string };

/** The API refuses more than this many transitions per run. */
export const MAX_SIMULATED_STEPS = 500;

/**
 * Server runs streaming at once. A browser opens six connections to a server; two are left for
 * the page's other requests (a step window, a trajectory list), and further runs wait their turn.
 */
export const MAX_SERVER_STREAMS = 4;

/** A fast simulator scores hundreds of steps a second; the page shows its count this often. */
const PROGRESS_INTERVAL_MS = 100;

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** What one run reports, from the server's event stream or the browser's model alike. */
interface RunReport {
  /** The run is under way (a server run has its stream). */
  began(): void;
  started(total: number): void;
  step(step: SimulatedStep): void;
  done(): void;
  failed(error: unknown): void;
}

interface LiveRun {
  /** Ends the run and keeps what it simulated. */
  stop(): void;
  /** Ends the run silently: another run of the same simulator replaces it. */
  drop(): void;
}

/**
 * Runs simulators over one trajectory, all in parallel, keeping each one's state apart so one
 * slow or failing endpoint never hides the others. Each run reports its count as steps are
 * scored, and can be stopped, keeping the steps it has; a new run of a simulator replaces its last.
 */
export function useSimulationRuns(trajectoryId: string) {
  const client = useTRPCClient();
  const [runs, setRuns] = useState<ReadonlyMap<string, SimulationRun>>(new Map());
  const live = useRef(new Map<string, LiveRun>());
  const slots = useRef(new StreamSlots(MAX_SERVER_STREAMS));

  useEffect(() => {
    const current = live.current;
    const streams = slots.current;
    return () => {
      // First, so that ending a streaming run does not start a waiting one on the way out.
      streams.clear();
      for (const run of current.values()) run.drop();
      current.clear();
    };
  }, []);

  /** Starts `sim` on the server or in this browser; returns how to cancel it. */
  const start = useCallback(
    (sim: string, maxSteps: number, report: RunReport): (() => void) => {
      if (isBrowserSimSpec(sim)) {
        const controller = new AbortController();
        report.began();
        // Loaded on first use: onnxruntime-web stays out of the Compare page's own chunk.
        import('../models/simulate-in-browser')
          .then(async ({ loadTrajectoryForBrowser, simulateInBrowser, stepNeighbors }) => {
            const trajectory = await loadTrajectoryForBrowser(client, trajectoryId);
            report.started(Math.min(maxSteps, countTransitions(trajectory)));
            await simulateInBrowser(trajectory, {
              maxSteps,
              // A v2 model reads the server's retrieved neighbors, then decodes here.
              neighbors: stepNeighbors(client, trajectoryId),
              signal: controller.signal,
              onStep: report.step,
            });
          })
          .then(report.done, report.failed);
        return () => controller.abort();
      }
      // A subscription, not one request: a slow endpoint's steps arrive as they are scored.
      let subscription: { unsubscribe(): void } | null = null;
      const release = slots.current.take(() => {
        report.began();
        subscription = client.simulate.runEvents.subscribe(
          { trajectoryId, sim, maxSteps },
          {
            onData: (event) => {
              if (event.type === 'started') report.started(event.total);
              else if (event.type === 'step') report.step(event.step);
              else {
                release();
                report.done();
              }
            },
            onError: (error) => {
              release();
              report.failed(error);
            },
          },
        );
      });
      return () => {
        subscription?.unsubscribe();
        release();
      };
    },
    [client, trajectoryId],
  );

  const run = useCallback(
    (sims: readonly string[], maxSteps: number) => {
      for (const sim of sims) {
        live.current.get(sim)?.drop();
        let startedAt = Date.now();
        let waiting = true;
        let steps: SimulatedStep[] = [];
        let total: number | null = null;
        let ended = false;
        let shownAt = 0;
        let pending: ReturnType<typeof setTimeout> | null = null;
        const show = (state: SimulationRun) =>
          setRuns((previous) => new Map(previous).set(sim, state));
        const showProgress = () => {
          pending = null;
          if (ended) return;
          shownAt = Date.now();
          show({ status: 'running', waiting, startedAt, done: steps.length, total });
        };
        // At most one update per interval, and the last count always shown.
        const progressed = () => {
          if (pending !== null || ended) return;
          const wait = shownAt + PROGRESS_INTERVAL_MS - Date.now();
          if (wait <= 0) showProgress();
          else pending = setTimeout(showProgress, wait);
        };
        const end = (state: SimulationRun | null) => {
          if (ended) return;
          ended = true;
          if (pending !== null) clearTimeout(pending);
          if (live.current.get(sim) === handle) live.current.delete(sim);
          if (state !== null) show(state);
        };
        const result = (): SimulationResult => ({
          trajectory: trajectoryId,
          sim,
          steps: [...steps],
        });
        const cancel = start(sim, maxSteps, {
          began: () => {
            waiting = false;
            startedAt = Date.now();
            progressed();
          },
          started: (count) => {
            // A stream that reconnects starts over.
            steps = [];
            total = count;
            progressed();
          },
          step: (step) => {
            steps.push(step);
            progressed();
          },
          done: () => end({ status: 'done', result: result() }),
          failed: (error) => end({ status: 'error', message: messageOf(error) }),
        });
        const handle: LiveRun = {
          stop: () => {
            cancel();
            end({ status: 'stopped', result: result(), total });
          },
          drop: () => {
            cancel();
            end(null);
          },
        };
        live.current.set(sim, handle);
        showProgress();
      }
    },
    [start, trajectoryId],
  );

  const stop = useCallback((sim: string) => live.current.get(sim)?.stop(), []);

  return { runs, run, stop };
}
