import type { Action, Domain, Outcome, ToolSchema, Trajectory } from '@terrarium/schema';
import { RecordError, type FormatAdapter, type RecordContext } from '../adapter';
import { domainOfBenchmark } from './domains';
import {
  contentText,
  expectArray,
  expectObject,
  isArray,
  isRecord,
  metadataOf,
  optionalBoolean,
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

/** Events that only report the controller's state to the UI: no agent action, no environment output. */
const STATE_ACTIONS = new Set(['change_agent_state']);
const STATE_OBSERVATIONS = new Set(['agent_state_changed', 'null']);
/** Action arguments that are bookkeeping, not what the agent asked for. */
const BOOKKEEPING_ARGS = new Set([
  'thought',
  'security_risk',
  'confirmation_state',
  'hidden',
  'impl_source',
]);

interface EventStreamResult {
  steps: StepDraft[];
  systemPrompt: string | null;
  tools: ToolSchema[] | null;
  task: string | null;
  agentModel: string | null;
  skippedEvents: number;
  unansweredObservations: string[];
}

function actionOf(
  kind: string,
  args: Record<string, unknown>,
  callId: string | null,
  functionName: string | null,
  at: string,
): Action {
  if (kind === 'run' && typeof args.command === 'string') {
    return { type: 'command', command: args.command, interpreter: 'bash' };
  }
  if (kind === 'run_ipython' && typeof args.code === 'string') {
    return { type: 'command', command: args.code, interpreter: 'python' };
  }
  const kept: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(args))
    if (!BOOKKEEPING_ARGS.has(key)) kept[key] = value;
  const argumentsJson = toJsonValue(kept, `${at}.args`);
  if (kind === 'browse' || kind === 'browse_interactive') {
    return { type: 'browser', name: kind, arguments: argumentsJson };
  }
  return { type: 'tool_call', name: functionName ?? kind, arguments: argumentsJson, callId };
}

function modelOf(event: Record<string, unknown>): string | null {
  const metadata = event.tool_call_metadata;
  if (!isRecord(metadata) || !isRecord(metadata.model_response)) return null;
  const model = metadata.model_response.model;
  return typeof model === 'string' ? model : null;
}

/**
 * OpenHands events in order: actions (`action`, `args`) become steps; observations (`observation`,
 * `content`, `extras`) answer the action whose `id` they name in `cause` (or whose tool call id they
 * carry). Controller state events are skipped and counted.
 */
export function stepsFromEvents(events: readonly unknown[], path: string): EventStreamResult {
  const result: EventStreamResult = {
    steps: [],
    systemPrompt: null,
    tools: null,
    task: null,
    agentModel: null,
    skippedEvents: 0,
    unansweredObservations: [],
  };
  const byEventId = new Map<string, StepDraft>();
  const byCallId = new Map<string, StepDraft>();
  // Older histories (pairs, resolver output) have no `id`/`cause`: an observation answers the
  // action right before it.
  let previousAction: StepDraft | null = null;
  events.forEach((raw, i) => {
    const at = `${path}[${i}]`;
    const event = expectObject(raw, at);
    const id = optionalId(event.id, `${at}.id`);
    const metadata = isRecord(event.tool_call_metadata) ? event.tool_call_metadata : null;
    const callId =
      metadata === null
        ? null
        : optionalId(metadata.tool_call_id, `${at}.tool_call_metadata.tool_call_id`);
    if (typeof event.action === 'string') {
      const kind = event.action;
      previousAction = null;
      if (STATE_ACTIONS.has(kind)) {
        result.skippedEvents++;
        return;
      }
      const args =
        event.args === undefined || event.args === null
          ? {}
          : expectObject(event.args, `${at}.args`);
      if (kind === 'system') {
        result.systemPrompt ??= optionalString(args.content, `${at}.args.content`);
        if (isArray(args.tools))
          result.tools = normalizeToolSchemas(args.tools, `${at}.args.tools`);
        return;
      }
      const source = optionalString(event.source, `${at}.source`);
      // Older events have no source; their first message is the user's task.
      const firstMessage = source === null && kind === 'message' && result.steps.length === 0;
      const actor = source === 'user' || firstMessage ? 'user' : 'agent';
      const timing = timingAt(optionalString(event.timestamp, `${at}.timestamp`));
      const reasoning =
        typeof args.thought === 'string' && args.thought !== '' ? args.thought : null;
      result.agentModel ??= modelOf(event);
      let step: StepDraft;
      if (kind === 'message') {
        const text =
          contentText(args.content, `${at}.args.content`) ??
          optionalString(event.message, `${at}.message`) ??
          '';
        if (actor === 'user' && result.task === null) result.task = text;
        step = messageStep(actor, text, {
          reasoning,
          timing,
          metadata: metadataOf({ eventId: event.id }),
        });
      } else {
        const functionName =
          metadata === null
            ? null
            : optionalString(metadata.function_name, `${at}.tool_call_metadata.function_name`);
        step = stepDraft({
          actor,
          action: actionOf(kind, args, callId, functionName, at),
          reasoning,
          timing,
          metadata: metadataOf({ eventId: event.id, openhandsAction: kind }),
        });
      }
      result.steps.push(step);
      previousAction = step;
      if (id !== null) byEventId.set(id, step);
      if (callId !== null) byCallId.set(callId, step);
      return;
    }
    if (typeof event.observation === 'string') {
      const kind = event.observation;
      const adjacent = previousAction;
      previousAction = null;
      if (STATE_OBSERVATIONS.has(kind)) {
        result.skippedEvents++;
        return;
      }
      const cause = optionalId(event.cause, `${at}.cause`);
      const linked =
        (cause === null ? undefined : byEventId.get(cause)) ??
        (callId === null ? undefined : byCallId.get(callId));
      const step =
        linked ?? (cause === null && callId === null ? (adjacent ?? undefined) : undefined);
      if (step === undefined || step.action.type === 'message' || step.observation !== null) {
        // Recall results, errors raised by the controller and the like answer no agent action.
        result.unansweredObservations.push(`${id ?? at}:${kind}`);
        return;
      }
      const content = contentText(event.content, `${at}.content`) ?? '';
      step.observation = observationOf(content, callId, {
        markedError: kind === 'error',
        shellOutput: kind === 'run',
      });
      const extras = isRecord(event.extras) ? event.extras : {};
      if (typeof extras.exit_code === 'number')
        step.metadata = { ...step.metadata, exitCode: extras.exit_code };
      return;
    }
    throw new RecordError(at, 'is neither an action nor an observation event');
  });
  return result;
}

function trajectoryOf(
  events: EventStreamResult,
  extra: {
    externalId: string;
    task: string | null;
    agentModel: string | null;
    domain: Domain;
    sourceBenchmark: string | null;
    outcome: Outcome;
    metadata: Record<string, unknown>;
  },
  record: unknown,
  context: RecordContext,
): Trajectory {
  return buildTrajectory(
    {
      externalId: extra.externalId,
      sourceFormat: 'openhands',
      sourceBenchmark: extra.sourceBenchmark,
      domain: extra.domain,
      task: extra.task ?? events.task,
      systemPrompt: events.systemPrompt,
      tools: events.tools,
      agentModel: extra.agentModel ?? events.agentModel,
      outcome: extra.outcome,
      steps: events.steps,
      metadata: metadataOf({
        ...extra.metadata,
        skippedStateEvents: events.skippedEvents,
        unansweredObservations:
          events.unansweredObservations.length === 0 ? undefined : events.unansweredObservations,
      }),
    },
    record,
    context,
  );
}

/** An OpenHands event stream saved as one JSON array (the UI's "export trajectory", `--save-trajectory-path`). */
export const openHandsEventsAdapter: FormatAdapter = {
  format: 'openhands',
  layout: { kind: 'json-document' },
  sniff({ head }) {
    if (!/^\s*\[\s*[[{]/.test(head) || !/"(action|observation)"\s*:\s*"/.test(head)) return false;
    return (
      /"source"\s*:\s*"(agent|user|environment)"/.test(head) ||
      // Older event dicts carry no source: an observation's `extras` still marks them.
      (/"observation"\s*:\s*"/.test(head) && /"extras"\s*:/.test(head))
    );
  },
  convert(record, context) {
    const events = stepsFromEvents(flattenHistory(expectArray(record, '')), '');
    return [
      trajectoryOf(
        events,
        {
          externalId: context.file,
          task: null,
          agentModel: null,
          // OpenHands is a coding agent working in a repository sandbox.
          domain: 'swe',
          sourceBenchmark: null,
          outcome: { reward: null, success: null },
          metadata: {},
        },
        record,
        context,
      ),
    ];
  },
};

/** Old evaluation files store history as `[action, observation]` pairs; newer ones as a flat event list. */
function flattenHistory(history: unknown[]): unknown[] {
  const flat: unknown[] = [];
  for (const item of history) {
    if (isArray(item)) flat.push(...item);
    else flat.push(item);
  }
  return flat;
}

/** A resolver run is named by its issue: `owner/repo#number`. */
function resolverIssueId(root: Record<string, unknown>): string | null {
  const issue = root.issue;
  if (!isRecord(issue)) return null;
  const number = optionalId(issue.number, 'issue.number');
  if (number === null) return null;
  const owner = optionalString(issue.owner, 'issue.owner');
  const repo = optionalString(issue.repo, 'issue.repo');
  return owner === null || repo === null ? `#${number}` : `${owner}/${repo}#${number}`;
}

function resolvedOf(root: Record<string, unknown>): boolean | null {
  const candidates = [
    root.report,
    isRecord(root.test_result) ? root.test_result.report : undefined,
    root.test_result,
  ];
  for (const candidate of candidates) {
    if (isRecord(candidate) && typeof candidate.resolved === 'boolean') return candidate.resolved;
  }
  return null;
}

/**
 * OpenHands evaluation output JSONL (`output.jsonl`): one `EvalOutput` per line with its `history`
 * (an event list, or `[action, observation]` pairs in older files); also resolver output, one
 * `ResolverOutput` (issue, patch, history, success) per line.
 */
export const openHandsEvalOutputAdapter: FormatAdapter = {
  format: 'openhands',
  layout: { kind: 'jsonl' },
  sniff({ head }) {
    if (!/^\s*\{/.test(head)) return false;
    // Resolver output (`openhands.resolver`): the issue it worked on, its patch and history.
    if (
      /"issue"\s*:\s*\{/.test(head) &&
      /"(issue_type|git_patch|result_explanation)"\s*:/.test(head)
    )
      return /"(history|instruction)"\s*:/.test(head);
    return (
      /"instance_id"\s*:/.test(head) &&
      (/"history"\s*:\s*\[/.test(head) ||
        // Long instructions and instances can push `history` out of the first 64 KiB.
        (/"instruction"\s*:/.test(head) &&
          /"(test_result|agent_class|git_patch|swe_instance)"\s*:/.test(head)))
    );
  },
  convert(record, context) {
    const root = expectObject(record, '');
    const instanceId = optionalId(root.instance_id, 'instance_id') ?? resolverIssueId(root);
    const metadata =
      root.metadata === undefined || root.metadata === null
        ? {}
        : expectObject(root.metadata, 'metadata');
    const llm = isRecord(metadata.llm_config) ? metadata.llm_config : {};
    const dataset = optionalString(metadata.dataset, 'metadata.dataset');
    const events = stepsFromEvents(flattenHistory(expectArray(root.history, 'history')), 'history');
    const resolved = resolvedOf(root) ?? optionalBoolean(root.success, 'success');
    return [
      trajectoryOf(
        events,
        {
          externalId: instanceId ?? `${context.file}:${context.line}`,
          task: optionalString(root.instruction, 'instruction'),
          agentModel: typeof llm.model === 'string' ? llm.model : null,
          domain:
            dataset === null
              ? 'swe'
              : domainOfBenchmark(dataset) === 'tool'
                ? 'swe'
                : domainOfBenchmark(dataset),
          sourceBenchmark: dataset,
          outcome: { reward: resolved === null ? null : resolved ? 1 : 0, success: resolved },
          metadata: {
            agentClass: metadata.agent_class,
            error: root.error ?? undefined,
            issueType: root.issue_type,
            resultExplanation: root.result_explanation,
          },
        },
        record,
        context,
      ),
    ];
  },
};
