import type { Actor, JsonValue, Metadata, StepTiming } from '@terrarium/schema';
import { RecordError } from '../adapter';
import { observationOf } from './observation-kind';
import { messageStep, stepDraft, type StepDraft } from './trajectory-builder';

/**
 * Chat-shaped logs (OpenAI messages, tau-bench, tau2, ShareGPT) are first mapped to these entries by
 * their adapter, then turned into steps here, so the pairing of calls and results lives in one place.
 */
export interface ChatToolCall {
  callId: string | null;
  name: string;
  arguments: JsonValue;
  /** Who made the call: tau2's simulated user calls tools on its own phone. */
  actor: Actor;
}

export type ChatEntry =
  | { kind: 'system'; text: string }
  | {
      kind: 'turn';
      actor: Actor;
      text: string | null;
      toolCalls: ChatToolCall[];
      reasoning: string | null;
      timing: StepTiming | null;
      metadata: Metadata;
    }
  | {
      kind: 'tool-result';
      /** Path of the result in the record, for errors. */
      path: string;
      callId: string | null;
      /** Tool name given with the result, used to pair when there is no call id. */
      name: string | null;
      content: string;
      markedError: boolean;
    };

export interface ChatSteps {
  steps: StepDraft[];
  systemPrompt: string | null;
  /** The first user message: the task, for formats that have no separate task field. */
  firstUserText: string | null;
}

interface PendingCall {
  step: StepDraft;
  callId: string | null;
  name: string;
}

function takePending(pending: PendingCall[], callId: string | null, name: string | null) {
  let at = -1;
  if (callId !== null) at = pending.findIndex((call) => call.callId === callId);
  else if (name !== null) at = pending.findIndex((call) => call.name === name);
  if (at === -1 && callId === null) at = 0;
  if (at === -1 || at >= pending.length) return null;
  const [call] = pending.splice(at, 1);
  return call ?? null;
}

/**
 * One step per message and one per tool call (parallel calls in one message are separate steps); a
 * tool result becomes the observation of the call it answers: by call id when it has one, else the
 * oldest unanswered call of the same name, else the oldest unanswered call. A result that answers no
 * call is a broken record. Text sent alongside tool calls is a message step before them.
 */
export function stepsFromChat(entries: readonly ChatEntry[]): ChatSteps {
  const steps: StepDraft[] = [];
  const pending: PendingCall[] = [];
  let systemPrompt: string | null = null;
  let firstUserText: string | null = null;

  for (const entry of entries) {
    if (entry.kind === 'system') {
      if (systemPrompt === null) systemPrompt = entry.text;
      else steps.push(messageStep('user', entry.text, { metadata: { role: 'system' } }));
      continue;
    }
    if (entry.kind === 'tool-result') {
      const call = takePending(pending, entry.callId, entry.name);
      if (call === null) {
        const which =
          entry.callId === null
            ? 'no unanswered tool call'
            : `no tool call with id "${entry.callId}"`;
        throw new RecordError(entry.path, `tool result answers ${which}`);
      }
      call.step.observation = observationOf(entry.content, entry.callId ?? call.callId, {
        markedError: entry.markedError,
      });
      continue;
    }
    let reasoning = entry.reasoning;
    const text = entry.text;
    if (text !== null && text.trim() !== '') {
      steps.push(
        messageStep(entry.actor, text, {
          reasoning,
          timing: entry.timing,
          metadata: entry.metadata,
        }),
      );
      reasoning = null;
      if (entry.actor === 'user' && firstUserText === null) firstUserText = text;
    }
    for (const call of entry.toolCalls) {
      const step = stepDraft({
        actor: call.actor,
        action: {
          type: 'tool_call',
          name: call.name,
          arguments: call.arguments,
          callId: call.callId,
        },
        reasoning,
        timing: entry.timing,
        metadata: entry.metadata,
      });
      reasoning = null;
      steps.push(step);
      pending.push({ step, callId: call.callId, name: call.name });
    }
  }
  return { steps, systemPrompt, firstUserText };
}
