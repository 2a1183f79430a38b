import type { Store } from '@terrarium/db';
import {
  actionText as scoringActionText,
  classifyObservation,
  HistoryIndex,
  scoreClassified,
  scoreRules,
} from '@terrarium/fidelity';
import type { SimulatedStep, SimulationResult, TrajectoryDetail } from '@terrarium/schema';
import {
  answeredCallId,
  predictionInputs,
  type PromptFolder,
  type RetryPolicy,
  type WorldModel,
  withCircuitBreaker,
} from '@terrarium/worlds';
import { officialProtocolSimulator } from './official-simulator';
import { loadTrajectory } from './load-trajectories';
import { resolveSimulator } from './resolve-simulator';
import { endpointAllowlistFromEnv, parseSimSpec, SimulatorError } from './sim-spec';

export interface SimulateOptions {
  /** At most this many transitions, from the first. */
  maxSteps?: number;
  signal?: AbortSignal;
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

function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
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
 * Runs a simulator open loop (teacher forcing) over a stored trajectory: at each transition it sees
 * the real history and the real action, and its prediction is scored against the real observation
 * with the rule metrics and the content-class score (key `content`). A failing step (endpoint down,
 * timeout) is recorded with its error and empty scores, and the run goes on; an aborted signal
 * stops the run with the signal's reason.
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
  const maxSteps = options.maxSteps ?? Number.POSITIVE_INFINITY;
  const history = new HistoryIndex();
  const steps: SimulatedStep[] = [];
  for (const input of predictionInputs(trajectory)) {
    if (steps.length >= maxSteps) break;
    options.signal?.throwIfAborted();
    const step = trajectory.steps[input.stepIndex];
    const action = scoringActionText(input.action);
    history.add(action);
    let simulated: SimulatedStep;
    try {
      const prediction = await simulator.predict(
        input.context,
        input.history,
        input.action,
        options.signal === undefined ? {} : { signal: options.signal },
      );
      const real = input.expected;
      const content = scoreClassified(
        prediction.observation.content,
        classifyObservation(real.content, history),
      );
      simulated = {
        step: step?.index ?? input.stepIndex,
        actor: step?.actor ?? 'agent',
        action: input.action,
        real,
        predicted: prediction.observation,
        reasoning: prediction.reasoning ?? null,
        provenance: {
          backend: prediction.provenance.backend,
          cache: prediction.provenance.cache,
          model: prediction.provenance.model ?? null,
        },
        latencyMs: prediction.latencyMs,
        usage: prediction.usage,
        scores: {
          ...scoreRules(prediction.observation.content, real.content, {
            kind: real.kind,
            action,
          }),
          content: content.score,
        },
        error: null,
      };
    } catch (error) {
      options.signal?.throwIfAborted();
      simulated = {
        step: step?.index ?? input.stepIndex,
        actor: step?.actor ?? 'agent',
        action: input.action,
        real: input.expected,
        predicted: { kind: 'text', content: '', callId: answeredCallId(input.action) },
        reasoning: null,
        provenance: { backend: simulator.id, cache: null, model: null },
        latencyMs: 0,
        usage: { inputTokens: 0, outputTokens: 0 },
        scores: {},
        error: errorText(error),
      };
    }
    history.add(input.expected.content);
    steps.push(simulated);
    options.onStep?.(simulated);
  }
  return { trajectory: detail.id, sim: spec, steps };
}
