import type { Action, JsonValue, TrajectoryLink } from '@terrarium/schema';
import { RecordError, type RecordNote } from '../adapter';
import {
  contentText,
  expectObject,
  expectString,
  isArray,
  isRecord,
  metadataOf,
  optionalArray,
  optionalId,
  optionalString,
  parseArguments,
} from './json-guards';
import { observationOf } from './observation-kind';
import { shellBlocks } from './shell-blocks';
import { parseTerminusReply } from './terminus-message';
import { messageStep, stepDraft, timingAt, type StepDraft } from './trajectory-builder';

interface CallStep {
  step: StepDraft;
  callId: string | null;
}

interface PendingLink {
  kind: TrajectoryLink['kind'];
  sessionId: string | null;
  path: string | null;
  /** The step the link hangs on; its index is known only once every step is read. */
  step: StepDraft | null;
}

interface RawResult {
  path: string;
  sourceCallId: string | null;
  content: string;
  subagentRefs: unknown[];
}

/** Terminus-style agents send tmux keystrokes through a `bash_command` tool: those are keystrokes. */
function actionOfCall(name: string, args: JsonValue, callId: string | null): Action {
  if (name === 'bash_command' && isRecord(args) && typeof args.keystrokes === 'string') {
    return { type: 'keystrokes', keys: args.keystrokes };
  }
  return { type: 'tool_call', name, arguments: args, callId };
}

/** ATIF names the tool `function_name`; some writers use `name` or an OpenAI-style `function.name`. */
function callName(call: Record<string, unknown>, path: string): string {
  if (typeof call.function_name === 'string') return call.function_name;
  if (typeof call.name === 'string') return call.name;
  if (isRecord(call.function) && typeof call.function.name === 'string') return call.function.name;
  if (call.function_name !== undefined)
    return expectString(call.function_name, `${path}.function_name`);
  throw new RecordError(`${path}.function_name`, 'missing (expected a string, or name)');
}

function joinText(parts: (string | null)[]): string | null {
  const kept = parts.filter((part): part is string => part !== null && part.trim() !== '');
  return kept.length === 0 ? null : kept.join('\n\n');
}

/**
 * Reads ATIF steps (every schema version 1.0–1.7 has the same core) into step drafts. Calls become
 * steps; a result answers the call its `source_call_id` names, in this step or an earlier one. Results
 * without one answer the step's own unanswered calls (one result per call in order, or a shared
 * terminal capture for a keystroke batch), else the oldest unanswered calls of earlier steps, else the
 * action written in the agent's message (Terminus-2 JSON/XML keystrokes, a fenced shell block).
 * Subagent references are links, not observations. A call id seen before is a duplicate record.
 */
export class AtifStepReader {
  readonly steps: StepDraft[] = [];
  private readonly callsById = new Map<string, StepDraft>();
  /** Calls still without an observation, oldest first, for results that name no call. */
  private readonly unanswered: CallStep[] = [];
  private readonly links: PendingLink[] = [];
  duplicateCalls = 0;
  duplicateResults = 0;
  copiedContextSteps = 0;
  /** Results that answer no action (kept in the step's metadata, not as observations). */
  unansweredResults = 0;

  /** `notes`: the record's (`RecordContext.notes`), told of arguments kept as text. */
  constructor(private readonly notes: RecordNote[]) {}

  addLink(link: PendingLink): void {
    this.links.push(link);
  }

  /** Links with the index of the step each hangs on. */
  resolvedLinks(indexOf: (step: StepDraft) => number): TrajectoryLink[] {
    return this.links.map((link) => {
      const index = link.step === null ? -1 : indexOf(link.step);
      return {
        kind: link.kind,
        sessionId: link.sessionId,
        path: link.path,
        stepIndex: index === -1 ? null : index,
      };
    });
  }

  readAgentStep(step: Record<string, unknown>, at: string): void {
    const message = contentText(step.message, `${at}.message`);
    const reasoningContent = optionalString(step.reasoning_content, `${at}.reasoning_content`);
    const timing = timingAt(optionalString(step.timestamp, `${at}.timestamp`));
    const metadata = metadataOf({ stepId: step.step_id, model: step.model_name });

    const ownCalls: CallStep[] = [];
    let duplicatesHere = 0;
    let reasoning = joinText([reasoningContent, message]);
    optionalArray(step.tool_calls, `${at}.tool_calls`).forEach((raw, i) => {
      const path = `${at}.tool_calls[${i}]`;
      const call = expectObject(raw, path);
      const callId = optionalId(call.tool_call_id ?? call.id, `${path}.tool_call_id`);
      const name = callName(call, path);
      // ATIF writes `arguments`; OpenAI-style writers nest them in `function`: a note names which.
      const nested = call.arguments === undefined || call.arguments === null;
      const rawArguments = nested
        ? isRecord(call.function)
          ? call.function.arguments
          : undefined
        : call.arguments;
      const args = parseArguments(
        rawArguments,
        `${path}.${nested ? 'function.arguments' : 'arguments'}`,
        this.notes,
      );
      if (callId !== null && this.callsById.has(callId)) {
        this.duplicateCalls++;
        duplicatesHere++;
        return;
      }
      const drafted = stepDraft({
        actor: 'agent',
        action: actionOfCall(name, args, callId),
        reasoning,
        timing,
        metadata,
      });
      reasoning = null;
      this.steps.push(drafted);
      const entry = { step: drafted, callId };
      ownCalls.push(entry);
      this.unanswered.push(entry);
      if (callId !== null) this.callsById.set(callId, drafted);
    });

    const results = this.readResults(step, at);
    const linksBefore = this.links.length;
    const unlinked = this.linkResults(results, ownCalls[0]?.step ?? null);
    if (ownCalls.length > 0) {
      this.answerOwnCalls(ownCalls, unlinked);
      return;
    }
    // A step that only repeats earlier call records adds nothing but the results it carried.
    if (duplicatesHere > 0 && unlinked.length === 0) return;

    // An action written in this very message claims the results before calls of earlier steps do.
    const text = message ?? '';
    const written = unlinked.length === 0 ? null : actionWritten(text);
    if (written === null && unlinked.length > 0 && this.answerEarlierCalls(unlinked)) return;
    if (written !== null) {
      const drafted = stepDraft({
        actor: 'agent',
        action: written.action,
        observation: observationOf(unlinked.join('\n'), null, {
          shellOutput: true,
        }),
        reasoning: joinText([reasoningContent, written.reasoning]),
        timing,
        metadata: { ...metadata, actionFrom: 'message' },
      });
      this.steps.push(drafted);
      return;
    }
    this.unansweredResults += unlinked.length;
    const drafted = messageStep('agent', text, {
      reasoning: reasoningContent,
      timing,
      metadata: unlinked.length === 0 ? metadata : { ...metadata, observationResults: unlinked },
    });
    this.steps.push(drafted);
    // Subagent runs started by a step without calls hang on the step itself.
    for (const link of this.links.slice(linksBefore)) link.step ??= drafted;
  }

  /** A user or system step may carry results too (some writers put tool output there). */
  readOtherStepResults(step: Record<string, unknown>, at: string): string[] {
    const unlinked = this.linkResults(this.readResults(step, at), null);
    if (unlinked.length === 0 || this.answerEarlierCalls(unlinked)) return [];
    this.unansweredResults += unlinked.length;
    return unlinked;
  }

  private readResults(step: Record<string, unknown>, at: string): RawResult[] {
    const observation =
      step.observation === undefined || step.observation === null
        ? null
        : expectObject(step.observation, `${at}.observation`);
    return optionalArray(observation?.results, `${at}.observation.results`).map((raw, i) => {
      const path = `${at}.observation.results[${i}]`;
      const result = expectObject(raw, path);
      const refs = result.subagent_trajectory_ref;
      return {
        path,
        sourceCallId: optionalId(result.source_call_id, `${path}.source_call_id`),
        content: contentText(result.content, `${path}.content`) ?? '',
        subagentRefs: refs === undefined || refs === null ? [] : isArray(refs) ? refs : [refs],
      };
    });
  }

  /**
   * Files results that name their call; records subagent links (on the call, or on `fallback`, the
   * step's first call). Returns the contents of results that name no call, in order.
   */
  private linkResults(results: RawResult[], fallback: StepDraft | null): string[] {
    const unlinked: string[] = [];
    for (const result of results) {
      const call =
        result.sourceCallId === null ? undefined : this.callsById.get(result.sourceCallId);
      if (result.sourceCallId !== null && call === undefined) {
        throw new RecordError(
          `${result.path}.source_call_id`,
          `no tool call with id "${result.sourceCallId}" in this or an earlier step`,
        );
      }
      if (result.subagentRefs.length > 0) {
        this.addSubagentLinks(result, call ?? fallback);
        if (call !== undefined) this.markAnswered(call);
        continue;
      }
      if (call === undefined) {
        unlinked.push(result.content);
        continue;
      }
      if (call.observation !== null) {
        this.duplicateResults++;
        continue;
      }
      call.observation = observationOf(result.content, result.sourceCallId, {
        shellOutput: call.action.type === 'keystrokes',
      });
      this.markAnswered(call);
    }
    return unlinked;
  }

  private addSubagentLinks(result: RawResult, step: StepDraft | null): void {
    result.subagentRefs.forEach((raw, i) => {
      const path = `${result.path}.subagent_trajectory_ref[${i}]`;
      const ref = expectObject(raw, path);
      this.links.push({
        kind: 'subagent',
        sessionId: optionalId(ref.session_id, `${path}.session_id`),
        path: optionalString(ref.trajectory_path, `${path}.trajectory_path`),
        step,
      });
    });
    if (step !== null) {
      const count = typeof step.metadata.subagentRuns === 'number' ? step.metadata.subagentRuns : 0;
      step.metadata = { ...step.metadata, subagentRuns: count + result.subagentRefs.length };
    }
  }

  private markAnswered(step: StepDraft): void {
    const at = this.unanswered.findIndex((entry) => entry.step === step);
    if (at !== -1) this.unanswered.splice(at, 1);
  }

  /**
   * Results without call ids for this step's calls: one each in order when the counts match; else a
   * keystroke batch shares the capture (its calls merge into one step, since the screen shows their
   * joint effect); else the last unanswered call gets them all.
   */
  private answerOwnCalls(calls: CallStep[], unlinked: string[]): void {
    if (unlinked.length === 0) return;
    const open = calls.filter((call) => call.step.observation === null);
    if (open.length === 0) {
      this.unansweredResults += unlinked.length;
      return;
    }
    if (open.length === unlinked.length) {
      open.forEach((call, i) => this.answer(call, unlinked[i] ?? ''));
      return;
    }
    const shared = unlinked.join('\n');
    const keystrokes = open.filter((call) => call.step.action.type === 'keystrokes');
    const [first, ...rest] = keystrokes;
    if (first !== undefined) {
      for (const call of rest) {
        if (first.step.action.type === 'keystrokes' && call.step.action.type === 'keystrokes') {
          first.step.action = {
            type: 'keystrokes',
            keys: first.step.action.keys + call.step.action.keys,
          };
        }
        this.mergeInto(call.step, first.step);
      }
      this.answer(first, shared);
      return;
    }
    const last = open[open.length - 1];
    if (last !== undefined) this.answer(last, shared);
  }

  /** Results that arrive in a later step than their calls answer the oldest unanswered ones. */
  private answerEarlierCalls(unlinked: string[]): boolean {
    if (this.unanswered.length === 0) return false;
    const calls = this.unanswered.slice(0, unlinked.length);
    if (calls.length < unlinked.length) {
      // More results than open calls: the last open call gets the rest, so nothing is dropped.
      const last = calls[calls.length - 1];
      calls.forEach((call, i) =>
        this.answer(call, call === last ? unlinked.slice(i).join('\n') : (unlinked[i] ?? '')),
      );
      return true;
    }
    calls.forEach((call, i) => this.answer(call, unlinked[i] ?? ''));
    return true;
  }

  private answer(call: CallStep, content: string): void {
    call.step.observation = observationOf(content, call.callId, {
      shellOutput: call.step.action.type === 'keystrokes',
    });
    this.markAnswered(call.step);
  }

  /** Drops a call merged into a batch; its id now names the batch step. */
  private mergeInto(step: StepDraft, batch: StepDraft): void {
    const at = this.steps.indexOf(step);
    if (at !== -1) this.steps.splice(at, 1);
    this.markAnswered(step);
    for (const [id, drafted] of this.callsById) if (drafted === step) this.callsById.set(id, batch);
  }
}

/**
 * The action an agent wrote in its message instead of a tool call: Terminus-2's keystrokes, or a
 * single fenced shell block. Null when the message holds no action.
 */
function actionWritten(text: string): { action: Action; reasoning: string | null } | null {
  const terminus = parseTerminusReply(text);
  if (terminus !== null && terminus.commandCount > 0) {
    return { action: { type: 'keystrokes', keys: terminus.keys }, reasoning: terminus.reasoning };
  }
  const blocks = shellBlocks(text);
  const [only] = blocks;
  if (blocks.length === 1 && only !== undefined) {
    return { action: { type: 'command', command: only, interpreter: 'bash' }, reasoning: text };
  }
  return null;
}
