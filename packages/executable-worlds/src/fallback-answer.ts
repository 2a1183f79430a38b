import type { Action, Observation } from '@terrarium/schema';
import { unansweredReason, type Prediction } from '@terrarium/worlds';
import type { WorldStepResult } from './world';

/**
 * Why the world did not answer an action itself, as a clause after "it" (`does not implement
 * fly_me`). A policy reads this: the reason code (`no-read-mapping`, `unsupported-command:git`) is
 * the world's bookkeeping, kept in the step's `detail`, and says nothing to a model that never saw
 * the world's source (walk 52 found `no-read-mapping: …` answered to a tool call).
 */
function plainReason(reason: string, action: Action): string {
  const program = /^unsupported-command:(.+)$/.exec(reason)?.[1];
  if (program !== undefined) return `has no ${program} program`;
  switch (reason) {
    case 'not-a-tool-call':
      return 'takes tool calls only';
    case 'no-read-mapping':
      return action.type === 'tool_call'
        ? `does not implement ${action.name}`
        : 'does not implement this tool';
    case 'changed-by-unmodelled-write':
      return 'cannot tell how an earlier call changed the record this call reads';
    case 'key-not-in-state':
      return 'has no record under the key this call names';
    case 'not-a-shell-command':
      return 'runs shell commands, and this is not one';
    case 'command-not-found':
      return 'has no such program';
    default:
      // SWE-agent's tools on a file or tree the recording never showed whole, and the like.
      return 'cannot reproduce what this does here';
  }
}

/** The observation of an action no recording, state or simulator could answer, in plain words. */
export function unansweredText(reason: string, action: Action, missed?: string): string {
  const why = plainReason(reason, action);
  return missed === undefined
    ? `the world cannot answer this: it ${why}, and no recording or simulator answers it`
    : `the world cannot answer this: it ${why}, and its simulator has no answer either (${missed})`;
}

/**
 * A world's step answered by its fallback simulator. A miss (replay with no recording of the
 * input, retrieval with nothing like the action) holds an empty text that nothing predicted: it
 * becomes an error observation naming the miss, as the worlds' "no world model" answer does,
 * rather than an empty output an agent would take for the command's own.
 */
export function fallbackAnswer(
  prediction: Prediction,
  reason: string,
  action: Action,
): WorldStepResult {
  const callId: Observation['callId'] = action.type === 'tool_call' ? action.callId : null;
  const backend = prediction.provenance.backend;
  const missed = unansweredReason(prediction.provenance);
  if (missed !== null) {
    return {
      observation: {
        kind: 'error',
        content: unansweredText(reason, action, `${backend}: ${missed}`),
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
