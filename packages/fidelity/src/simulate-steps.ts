import type { SimProvenance, SimulatedStep, Trajectory } from '@terrarium/schema';
import {
  answeredCallId,
  predictionInputs,
  unansweredReason,
  type PredictionInput,
  type PredictOptions,
  type Prediction,
  type WorldModel,
} from '@terrarium/worlds';
import { classifyObservation } from './content/classify';
import { HistoryIndex } from './content/history-index';
import { scoreClassified } from './content/score';
import { actionText } from './items';
import { scoreRules } from './metrics/rule-metrics';

export interface SimulateStepsOptions {
  /** At most this many transitions, from the first. */
  maxSteps?: number;
  signal?: AbortSignal;
  onStep?: (step: SimulatedStep) => void;
  /** Given to every prediction, with `signal`. */
  predictOptions?: Omit<PredictOptions, 'signal'>;
  /**
   * A step's provenance from its prediction (null when the model failed, or could not be made:
   * then `model` is null too). Default: the prediction's backend, cache and model; for a failure,
   * the model's id as the backend.
   */
  provenance?: (prediction: Prediction | null, model: WorldModel | null) => SimProvenance;
}

function defaultProvenance(prediction: Prediction | null, model: WorldModel | null): SimProvenance {
  if (prediction === null) return { backend: model?.id ?? 'none', cache: null, model: null };
  return {
    backend: prediction.provenance.backend,
    cache: prediction.provenance.cache,
    model: prediction.provenance.model ?? null,
  };
}

/** A prediction that holds no answer: failed like an error, with its own provenance kept. */
class UnansweredStep extends Error {
  override name = 'UnansweredStep';
  constructor(
    readonly provenance: SimProvenance,
    reason: string,
  ) {
    super(`${provenance.backend}: ${reason}`);
  }
}

function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/**
 * A world model run open loop (teacher forcing) over a recorded trajectory: at each transition it
 * sees the real history and the real action, and its prediction is scored against the real
 * observation with the rule metrics and the content-class score (key `content`). The one place a
 * simulated step is scored, so the server's Compare and the browser's agree. A failing step
 * (endpoint down, timeout, a miss of replay or retrieval) is kept with its error and no scores, and the run goes on; an aborted
 * signal stops the run with the signal's reason.
 *
 * `modelFor` gives the model for each step (the browser's carries that step's retrieved
 * neighbors); most callers return one model throughout.
 */
export async function simulateSteps(
  trajectory: Trajectory,
  modelFor: (input: PredictionInput) => WorldModel,
  options: SimulateStepsOptions = {},
): Promise<SimulatedStep[]> {
  const provenance = options.provenance ?? defaultProvenance;
  const maxSteps = options.maxSteps ?? Number.POSITIVE_INFINITY;
  // Holds every earlier action and real observation, and the current action, as the content
  // classes expect when they decide what the history already fixes.
  const history = new HistoryIndex();
  const steps: SimulatedStep[] = [];
  for (const input of predictionInputs(trajectory)) {
    if (steps.length >= maxSteps) break;
    options.signal?.throwIfAborted();
    const step = trajectory.steps[input.stepIndex];
    const action = actionText(input.action);
    history.add(action);
    const real = input.expected;
    const base = {
      step: step?.index ?? input.stepIndex,
      actor: step?.actor ?? 'agent',
      action: input.action,
      real,
    } as const;
    let model: WorldModel | null = null;
    let simulated: SimulatedStep;
    try {
      model = modelFor(input);
      const prediction = await model.predict(input.context, input.history, input.action, {
        ...options.predictOptions,
        ...(options.signal === undefined ? {} : { signal: options.signal }),
      });
      // A miss (replay with no recording, retrieval with nothing alike) fails the step: its
      // empty text is not a prediction to score. Its provenance stays, so a hit rate counts it.
      const missed = unansweredReason(prediction.provenance);
      if (missed !== null) throw new UnansweredStep(provenance(prediction, model), missed);
      const content = scoreClassified(
        prediction.observation.content,
        classifyObservation(real.content, history),
      );
      simulated = {
        ...base,
        predicted: prediction.observation,
        reasoning: prediction.reasoning ?? null,
        provenance: provenance(prediction, model),
        latencyMs: prediction.latencyMs,
        usage: prediction.usage,
        scores: {
          ...scoreRules(prediction.observation.content, real.content, { kind: real.kind, action }),
          content: content.score,
        },
        error: null,
      };
    } catch (error) {
      options.signal?.throwIfAborted();
      simulated = {
        ...base,
        predicted: { kind: 'text', content: '', callId: answeredCallId(input.action) },
        reasoning: null,
        provenance: error instanceof UnansweredStep ? error.provenance : provenance(null, model),
        latencyMs: 0,
        usage: { inputTokens: 0, outputTokens: 0 },
        scores: {},
        error: errorText(error),
      };
    }
    history.add(real.content);
    steps.push(simulated);
    options.onStep?.(simulated);
  }
  return steps;
}
