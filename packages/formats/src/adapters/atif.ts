import type { Action, Actor } from '@terrarium/schema';
import { RecordError, type FormatAdapter } from '../adapter';
import {
  contentText,
  expectArray,
  expectObject,
  expectString,
  isArray,
  isRecord,
  metadataOf,
  optionalArray,
  optionalId,
  optionalString,
  toJsonValue,
} from './json-guards';
import { observationOf } from './observation-kind';
import { normalizeToolSchemas } from './tool-schemas';
import {
  buildTrajectory,
  messageStep,
  stepDraft,
  timingAt,
  type StepDraft,
} from './trajectory-builder';

interface AtifCall {
  callId: string | null;
  action: Action;
  path: string;
}

/** Terminus-style agents send tmux keystrokes through a `bash_command` tool: those are keystrokes. */
function actionOfCall(name: string, args: unknown, callId: string | null, path: string): Action {
  if (name === 'bash_command' && isRecord(args) && typeof args.keystrokes === 'string') {
    return { type: 'keystrokes', keys: args.keystrokes };
  }
  return {
    type: 'tool_call',
    name,
    arguments: toJsonValue(args ?? {}, `${path}.arguments`),
    callId,
  };
}

function joinText(parts: (string | null)[]): string | null {
  const kept = parts.filter((part): part is string => part !== null && part.trim() !== '');
  return kept.length === 0 ? null : kept.join('\n\n');
}

/**
 * One agent step of ATIF: each tool call becomes a step; a result names its call by `source_call_id`.
 * Results without one (Terminus captures the terminal once after a batch of keystrokes) answer the
 * single call, or, after several keystrokes calls, the batch: those calls merge into one keystrokes
 * step, since the screen shows their joint effect. The message sent beside tool calls is the agent's
 * analysis and joins its reasoning.
 */
function agentSteps(step: Record<string, unknown>, at: string): StepDraft[] {
  const message = contentText(step.message, `${at}.message`);
  const reasoningContent = optionalString(step.reasoning_content, `${at}.reasoning_content`);
  const timing = timingAt(optionalString(step.timestamp, `${at}.timestamp`));
  const metadata = metadataOf({ stepId: step.step_id, model: step.model_name });
  const calls: AtifCall[] = optionalArray(step.tool_calls, `${at}.tool_calls`).map((raw, i) => {
    const path = `${at}.tool_calls[${i}]`;
    const call = expectObject(raw, path);
    const callId = optionalId(call.tool_call_id, `${path}.tool_call_id`);
    const name = expectString(call.function_name, `${path}.function_name`);
    return { callId, action: actionOfCall(name, call.arguments, callId, path), path };
  });
  const observation =
    step.observation === undefined || step.observation === null
      ? null
      : expectObject(step.observation, `${at}.observation`);
  const linked = new Map<string, string>();
  const unlinked: string[] = [];
  optionalArray(observation?.results, `${at}.observation.results`).forEach((raw, i) => {
    const path = `${at}.observation.results[${i}]`;
    const result = expectObject(raw, path);
    const content =
      contentText(result.content, `${path}.content`) ??
      (result.subagent_trajectory_ref === undefined
        ? ''
        : JSON.stringify(
            toJsonValue(result.subagent_trajectory_ref, `${path}.subagent_trajectory_ref`),
          ));
    const source = optionalId(result.source_call_id, `${path}.source_call_id`);
    if (source !== null && calls.some((call) => call.callId === source))
      linked.set(source, content);
    else if (source !== null)
      throw new RecordError(
        `${path}.source_call_id`,
        `no tool call with id "${source}" in this step`,
      );
    else unlinked.push(content);
  });

  if (calls.length === 0) {
    const text = message ?? '';
    return [
      messageStep('agent', text, {
        reasoning: reasoningContent,
        timing,
        metadata: unlinked.length === 0 ? metadata : { ...metadata, observationResults: unlinked },
      }),
    ];
  }

  const sharedOutput = unlinked.length === 0 ? null : unlinked.join('\n');
  const keystrokeCalls = calls.filter(
    (call) => call.action.type === 'keystrokes' && !linked.has(call.callId ?? ''),
  );
  const mergeBatch = sharedOutput !== null && calls.length > 1 && keystrokeCalls.length > 0;
  const steps: StepDraft[] = [];
  let reasoning = joinText([reasoningContent, message]);
  let batchStep: StepDraft | null = null;
  calls.forEach((call, i) => {
    const output = call.callId === null ? undefined : linked.get(call.callId);
    if (mergeBatch && output === undefined && call.action.type === 'keystrokes') {
      if (batchStep !== null && batchStep.action.type === 'keystrokes') {
        batchStep.action = { type: 'keystrokes', keys: batchStep.action.keys + call.action.keys };
        return;
      }
    }
    const isShell = call.action.type === 'keystrokes';
    const shared = sharedOutput !== null && (mergeBatch ? isShell : i === calls.length - 1);
    const content = output ?? (shared ? sharedOutput : null);
    const drafted = stepDraft({
      actor: 'agent',
      action: call.action,
      observation:
        content === null ? null : observationOf(content, call.callId, { shellOutput: isShell }),
      reasoning,
      timing,
      metadata,
    });
    reasoning = null;
    steps.push(drafted);
    if (mergeBatch && isShell && output === undefined) batchStep = drafted;
  });
  return steps;
}

/** Harbor / Terminal-Bench ATIF trajectory JSON: `{schema_version: "ATIF-v1.x", session_id, agent, steps}`. */
export const atifAdapter: FormatAdapter = {
  format: 'atif',
  layout: { kind: 'json-document' },
  sniff({ head }) {
    if (!/^\s*\{/.test(head)) return false;
    if (/"schema_version"\s*:\s*"ATIF-/i.test(head)) return true;
    return (
      /"steps"\s*:\s*\[/.test(head) &&
      /"step_id"\s*:/.test(head) &&
      /"source"\s*:\s*"(system|user|agent)"/.test(head)
    );
  },
  convert(record, context) {
    const root = expectObject(record, '');
    const agent = root.agent === undefined ? {} : expectObject(root.agent, 'agent');
    let systemPrompt: string | null = null;
    let task: string | null = null;
    const steps: StepDraft[] = [];
    expectArray(root.steps, 'steps').forEach((raw, i) => {
      const at = `steps[${i}]`;
      const step = expectObject(raw, at);
      const source = expectString(step.source, `${at}.source`);
      if (source === 'agent') {
        steps.push(...agentSteps(step, at));
        return;
      }
      if (source !== 'user' && source !== 'system')
        throw new RecordError(`${at}.source`, `unknown source "${source}"`);
      const text = contentText(step.message, `${at}.message`) ?? '';
      if (source === 'system' && systemPrompt === null) {
        systemPrompt = text;
        return;
      }
      if (source === 'user' && task === null) task = text;
      const actor: Actor = 'user';
      steps.push(
        messageStep(actor, text, {
          timing: timingAt(optionalString(step.timestamp, `${at}.timestamp`)),
          metadata: metadataOf({
            stepId: step.step_id,
            role: source === 'system' ? 'system' : undefined,
          }),
        }),
      );
    });
    const usesTerminal = steps.some((step) => step.action.type === 'keystrokes');
    const toolDefinitions = agent.tool_definitions;
    return [
      buildTrajectory(
        {
          externalId: optionalId(root.session_id, 'session_id') ?? context.file,
          sourceFormat: 'atif',
          sourceBenchmark: null,
          domain: usesTerminal ? 'terminal' : 'tool',
          task,
          systemPrompt,
          tools: isArray(toolDefinitions)
            ? normalizeToolSchemas(toolDefinitions, 'agent.tool_definitions')
            : null,
          agentModel: optionalString(agent.model_name, 'agent.model_name'),
          outcome: { reward: null, success: null },
          steps,
          metadata: metadataOf({
            schemaVersion: root.schema_version,
            agentName: agent.name,
            agentVersion: agent.version,
            notes: root.notes,
            finalMetrics: root.final_metrics,
          }),
        },
        record,
        context,
      ),
    ];
  },
};
