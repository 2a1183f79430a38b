import type { Observation } from '@terrarium/schema';
import { unansweredReason, type Prediction } from '@terrarium/worlds';
import type { WorldStepResult } from './world';

/**
 * A world's step answered by its fallback simulator. A miss (replay with no recording of the
 * input, retrieval with nothing like the action) holds an empty text that nothing predicted: it
 * becomes an error observation naming the miss, as the worlds' "no world model" answer does,
 * rather than an empty output an agent would take for the command's own.
 */
export function fallbackAnswer(
  prediction: Prediction,
  reason: string,
  callId: Observation['callId'],
): WorldStepResult {
  const backend = prediction.provenance.backend;
  const missed = unansweredReason(prediction.provenance);
  if (missed !== null) {
    return {
      observation: {
        kind: 'error',
        content: `${reason}: the world model (${backend}) has no answer: ${missed}`,
        callId,
      },
      exitCode: null,
      provenance: 'world-model',
      detail: { reason, backend, unanswered: missed },
    };
  }
  return {
    observation: prediction.observation,
    exitCode: null,
    provenance: 'world-model',
    detail: { reason, backend },
  };
}
