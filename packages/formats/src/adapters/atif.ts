import type { Actor, Trajectory } from '@terrarium/schema';
import { TRAJECTORY_LINKS_KEY } from '@terrarium/schema';
import { RecordError, type FormatAdapter, type RecordContext, type RecordNote } from '../adapter';
import { AtifStepReader } from './atif-steps';
import {
  contentText,
  expectArray,
  expectObject,
  expectString,
  isArray,
  metadataOf,
  optionalId,
  optionalString,
} from './json-guards';
import { normalizeToolSchemas } from './tool-schemas';
import { buildTrajectory, messageStep, timingAt } from './trajectory-builder';

/** `ATIF-v1.0` … `ATIF-v1.7`, or the bare `1.x` some writers (and early drafts) used. */
const VERSION = /^(?:ATIF-v)?(\d+)\.(\d+)$/i;

/** `continued_trajectory_ref` is a file name in the models; accept `{session_id, trajectory_path}` too. */
function continuationOf(value: unknown): { sessionId: string | null; path: string | null } | null {
  if (value === undefined || value === null) return null;
  if (typeof value === 'string') return value === '' ? null : { sessionId: null, path: value };
  const ref = expectObject(value, 'continued_trajectory_ref');
  return {
    sessionId: optionalId(ref.session_id, 'continued_trajectory_ref.session_id'),
    path: optionalString(ref.trajectory_path, 'continued_trajectory_ref.trajectory_path'),
  };
}

function convertDocument(
  root: Record<string, unknown>,
  record: unknown,
  context: RecordContext,
  fallbackId: string,
): Trajectory[] {
  const version = optionalString(root.schema_version, 'schema_version');
  if (version !== null && !VERSION.test(version))
    throw new RecordError('schema_version', `"${version}" is not an ATIF version (ATIF-v1.x)`);
  const agent = root.agent === undefined ? {} : expectObject(root.agent, 'agent');
  let systemPrompt: string | null = null;
  let task: string | null = null;
  const reader = new AtifStepReader(context.notes);
  expectArray(root.steps, 'steps').forEach((raw, i) => {
    const at = `steps[${i}]`;
    const step = expectObject(raw, at);
    const source = expectString(step.source, `${at}.source`);
    if (source !== 'agent' && source !== 'user' && source !== 'system')
      throw new RecordError(`${at}.source`, `unknown source "${source}"`);
    // A continuation file repeats earlier context (ATIF 1.7 `is_copied_context`): it was read there.
    if (step.is_copied_context === true) {
      reader.copiedContextSteps++;
      const copied = contentText(step.message, `${at}.message`);
      if (source === 'system') systemPrompt ??= copied;
      if (source === 'user') task ??= copied;
      return;
    }
    if (source === 'agent') {
      reader.readAgentStep(step, at);
      return;
    }
    const text = contentText(step.message, `${at}.message`) ?? '';
    const leftover = reader.readOtherStepResults(step, at);
    if (source === 'system' && systemPrompt === null && leftover.length === 0) {
      systemPrompt = text;
      return;
    }
    // A step that only carried results for earlier calls is not a message of its own.
    if (text === '' && leftover.length === 0 && step.observation !== undefined) return;
    if (source === 'user' && task === null) task = text;
    const actor: Actor = 'user';
    reader.steps.push(
      messageStep(actor, text, {
        timing: timingAt(optionalString(step.timestamp, `${at}.timestamp`)),
        metadata: metadataOf({
          stepId: step.step_id,
          role: source === 'system' ? 'system' : undefined,
          observationResults: leftover.length === 0 ? undefined : leftover,
        }),
      }),
    );
  });

  const continuation = continuationOf(root.continued_trajectory_ref);
  if (continuation !== null) reader.addLink({ kind: 'continuation', ...continuation, step: null });

  // ATIF 1.7 may embed subagent runs whole; each becomes its own trajectory, linked from this one.
  const embedded: Trajectory[] = [];
  const subagents = root.subagent_trajectories;
  if (isArray(subagents)) {
    subagents.forEach((raw, i) => {
      const path = `subagent_trajectories[${i}]`;
      const sub = expectObject(raw, path);
      // The run's notes name their fields from the outer document, as its errors do.
      const notes: RecordNote[] = [];
      try {
        const converted = convertDocument(
          sub,
          sub,
          { ...context, notes },
          `${fallbackId}#subagent-${i}`,
        );
        const first = converted[0];
        if (first !== undefined) {
          reader.addLink({ kind: 'subagent', sessionId: first.externalId, path: null, step: null });
        }
        embedded.push(...converted);
      } catch (error) {
        if (error instanceof RecordError)
          throw new RecordError(`${path}.${error.field}`, error.problem);
        throw error;
      } finally {
        for (const note of notes) context.notes.push({ ...note, field: `${path}.${note.field}` });
      }
    });
  }

  const steps = reader.steps;
  const links = reader.resolvedLinks((step) => steps.indexOf(step));
  const usesTerminal = steps.some((step) => step.action.type === 'keystrokes');
  const toolDefinitions = agent.tool_definitions;
  const main = buildTrajectory(
    {
      externalId:
        optionalId(root.session_id, 'session_id') ??
        optionalId(root.trajectory_id, 'trajectory_id') ??
        fallbackId,
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
        schemaVersion: version ?? undefined,
        agentName: agent.name,
        agentVersion: agent.version,
        notes: root.notes,
        finalMetrics: root.final_metrics,
        duplicateToolCalls: reader.duplicateCalls || undefined,
        duplicateResults: reader.duplicateResults || undefined,
        copiedContextSteps: reader.copiedContextSteps || undefined,
        unansweredResults: reader.unansweredResults || undefined,
        [TRAJECTORY_LINKS_KEY]: links.length === 0 ? undefined : links,
      }),
    },
    record,
    context,
  );
  return [main, ...embedded];
}

/**
 * Harbor / Terminal-Bench ATIF trajectory JSON (`{schema_version: "ATIF-v1.x", session_id, agent,
 * steps}`), every version 1.0–1.7. Subagent runs and continuation files are links, not steps.
 */
export const atifAdapter: FormatAdapter = {
  format: 'atif',
  layout: { kind: 'json-document' },
  sniff({ head }) {
    if (!/^\s*\{/.test(head)) return false;
    if (/"schema_version"\s*:\s*"ATIF-/i.test(head)) return true;
    if (/"schema_version"\s*:\s*"1\.\d+"/.test(head) && /"(steps|session_id)"\s*:/.test(head))
      return true;
    return (
      /"steps"\s*:\s*\[/.test(head) &&
      /"step_id"\s*:/.test(head) &&
      /"source"\s*:\s*"(system|user|agent)"/.test(head)
    );
  },
  convert(record, context) {
    const root = expectObject(record, '');
    return convertDocument(root, record, context, context.file);
  },
};
