import type { Prediction } from './world-model';

/**
 * Why a prediction holds no answer, or null when it holds one: replay found no recording of the
 * input, retrieval nothing like the action. Such a prediction is a failed one where predictions are
 * counted, scored or stored (Compare, What if, bench runs and their closed-loop histories, the
 * OpenAI-compatible endpoint, an executable world's fallback, a curriculum rollout): its empty
 * text is not an observation the simulator predicted. cache-then-model reports `miss` for "not
 * cached" even when its model answered, so there the model's own provenance decides.
 */
export function unansweredReason(provenance: Prediction['provenance']): string | null {
  if (provenance.cache !== 'miss') return null;
  const detail = provenance.detail ?? {};
  if (provenance.backend === 'cache-then-model') {
    const inner = detail['modelProvenance'];
    if (typeof inner !== 'object' || inner === null || Array.isArray(inner)) return null;
    if (inner['cache'] !== 'miss') return null;
    const innerDetail = inner['detail'];
    const reason =
      typeof innerDetail === 'object' && innerDetail !== null && !Array.isArray(innerDetail)
        ? innerDetail['reason']
        : undefined;
    return typeof reason === 'string' ? reason : 'the fallback found no answer';
  }
  const reason = detail['reason'];
  return `${typeof reason === 'string' ? reason : 'no recorded answer'} in the dataset`;
}

/** A prediction that holds no answer, thrown where a failed prediction is caught and kept. */
export class UnansweredError extends Error {
  override name = 'UnansweredError';
  constructor(backend: string, reason: string) {
    super(`${backend}: ${reason}`);
  }
}

/** The prediction, or an `UnansweredError` naming why it holds no answer. */
export function answeredOrThrow(prediction: Prediction): Prediction {
  const reason = unansweredReason(prediction.provenance);
  if (reason !== null) throw new UnansweredError(prediction.provenance.backend, reason);
  return prediction;
}
