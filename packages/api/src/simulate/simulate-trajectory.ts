import type { Store } from '@terrarium/db';
import { simulateSteps } from '@terrarium/fidelity/simulate';
import type { SimulatedStep, SimulationResult, TrajectoryDetail } from '@terrarium/schema';
import {
  type PromptFolder,
  type RetryPolicy,
  type WorldModel,
  withCircuitBreaker,
} from '@terrarium/worlds';
import { eventStream } from './event-stream';
import { officialProtocolSimulator } from './official-simulator';
import { loadTrajectory } from './load-trajectories';
import { resolveSimulator } from './resolve-simulator';
import { endpointAllowlistFromEnv, parseSimSpec, SimulatorError } from './sim-spec';

export interface SimulateOptions {
  /** At most this many transitions, from the first. */
  maxSteps?: number;
  signal?: AbortSignal;
  /** Called once the run is set up, with how many transitions it will simulate. */
  onStart?: (total: number) => void;
  onStep?: (step: SimulatedStep) => void;
  /** Default: `TERRARIUM_ENDPOINT_ALLOWLIST`, else this machine. */
  allowlist?: readonly string[];
  /** Default: the server's undici transport. */
  fetch?: typeof fetch;
  /** `openai:` retries per step (default: four attempts with backoff). */
  retry?: RetryPolicy;
  /** Let `onnx:PATH` name any model folder (the CLI acting for its user). */
  anyOnnxPath?: boolean;
  /** A ready simulator instead of resolving `spec` (tests, the `/v1` endpoint). */
  simulator?: WorldModel;
  /** `serve --prompts DIR`: an `openai:` spec speaks the official protocol. */
  prompts?: PromptFolder | null;
}

/** The trajectory's header, or a 404-style error naming the field. */
export async function requireTrajectory(
  store: Store,
  trajectoryId: string,
  field = 'trajectoryId',
): Promise<TrajectoryDetail> {
  const detail = /^\d+$/.test(trajectoryId) ? await store.getTrajectory(trajectoryId) : null;
  if (detail === null) throw new SimulatorError(field, `no trajectory ${trajectoryId}`, 404);
  return detail;
}

/**
 * Runs the simulator `spec` names open loop over a stored trajectory, every step scored
 * (`simulateSteps`: a failing step is kept with its error, an aborted signal stops the run).
 */
export async function simulateTrajectory(
  store: Store,
  trajectoryId: string,
  spec: string,
  options: SimulateOptions = {},
): Promise<SimulationResult> {
  const detail = await requireTrajectory(store, trajectoryId);
  const prompts = options.prompts ?? null;
  const official =
    options.simulator === undefined && prompts !== null && parseSimSpec(spec).kind === 'openai';
  const simulator =
    options.simulator ??
    (official && prompts !== null
      ? withCircuitBreaker(
          officialProtocolSimulator(spec, detail, prompts, {
            allowlist: options.allowlist ?? endpointAllowlistFromEnv(),
            fetch: options.fetch,
          }),
        )
      : undefined) ??
    (await resolveSimulator(spec, {
      store,
      trajectory: detail,
      allowlist: options.allowlist ?? endpointAllowlistFromEnv(),
      fetch: options.fetch,
      retry: options.retry,
      anyOnnxPath: options.anyOnnxPath ?? false,
    }));
  const trajectory = await loadTrajectory(store, detail);
  options.onStart?.(Math.min(options.maxSteps ?? Number.POSITIVE_INFINITY, detail.transitionCount));
  const steps = await simulateSteps(trajectory, () => simulator, {
    ...(options.maxSteps === undefined ? {} : { maxSteps: options.maxSteps }),
    ...(options.signal === undefined ? {} : { signal: options.signal }),
    ...(options.onStep === undefined ? {} : { onStep: options.onStep }),
  });
  return { trajectory: detail.id, sim: spec, steps };
}

export type SimulationEvent =
  { type: 'started'; total: number } | { type: 'step'; step: SimulatedStep } | { type: 'done' };

/**
 * `simulateTrajectory` as a stream of events: `started` with the number of transitions, each
 * simulated step as it is scored, then `done`; a failure is thrown from the iteration. For the
 * Compare page, which shows how far a slow endpoint has come and keeps the steps of a run its
 * user stops.
 */
export function simulateTrajectoryEvents(
  store: Store,
  trajectoryId: string,
  spec: string,
  options: Omit<SimulateOptions, 'onStart' | 'onStep'> = {},
): AsyncGenerator<SimulationEvent> {
  return eventStream<SimulationEvent, SimulationResult>(
    (emit) =>
      simulateTrajectory(store, trajectoryId, spec, {
        ...options,
        onStart: (total) => emit({ type: 'started', total }),
        onStep: (step) => emit({ type: 'step', step }),
      }),
    () => ({ type: 'done' }),
  );
}
