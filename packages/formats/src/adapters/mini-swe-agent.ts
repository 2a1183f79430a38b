import type { Action, JsonValue } from '@terrarium/schema';
import { RecordError, type FormatAdapter, type RecordNote } from '../adapter';
import {
  baseName,
  contentText,
  expectArray,
  expectObject,
  expectString,
  isArray,
  isRecord,
  metadataOf,
  optionalArray,
  optionalId,
  optionalNumber,
  optionalString,
  parseArguments,
} from './json-guards';
import { parseShellResult } from './mini-swe-agent-observation';
import { observationOf } from './observation-kind';
import { shellBlocks, withoutShellBlocks } from './shell-blocks';
import { buildTrajectory, messageStep, stepDraft, type StepDraft } from './trajectory-builder';

const FORMAT_KEY = /"trajectory_format"\s*:\s*"mini-swe-agent/;
const MINI_INFO = /"mini_version"\s*:|"(agent|model|environment)_type"\s*:\s*"minisweagent\./;
const MINI_MARKERS =
  /<returncode>|mswea_bash_command|COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT|MINI_SWE_AGENT_FINAL_OUTPUT/;

interface PendingAction {
  step: StepDraft;
  callId: string | null;
}

/** The commands an assistant message asks to run: v2's parsed `extra.actions`, tool calls, or text. */
function actionsOf(
  message: Record<string, unknown>,
  text: string,
  at: string,
  notes: RecordNote[],
): { action: Action; callId: string | null }[] {
  const extra = isRecord(message.extra) ? message.extra : null;
  const toolCalls = optionalArray(message.tool_calls, `${at}.tool_calls`);
  if (toolCalls.length > 0) {
    return toolCalls.map((raw, i) => {
      const path = `${at}.tool_calls[${i}]`;
      const call = expectObject(raw, path);
      const fn = expectObject(call.function, `${path}.function`);
      const name = expectString(fn.name, `${path}.function.name`);
      const args: JsonValue = parseArguments(fn.arguments, `${path}.function.arguments`, notes);
      const callId = optionalId(call.id, `${path}.id`);
      if (isRecord(args) && typeof args.command === 'string') {
        return { action: { type: 'command', command: args.command, interpreter: 'bash' }, callId };
      }
      return { action: { type: 'tool_call', name, arguments: args, callId }, callId };
    });
  }
  if (extra !== null && isArray(extra.actions)) {
    return extra.actions.flatMap((raw, i) => {
      const action = expectObject(raw, `${at}.extra.actions[${i}]`);
      const command = expectString(action.command, `${at}.extra.actions[${i}].command`);
      return [
        {
          action: { type: 'command' as const, command, interpreter: 'bash' as const },
          callId: optionalId(action.tool_call_id, `${at}.extra.actions[${i}].tool_call_id`),
        },
      ];
    });
  }
  // mini-swe-agent runs a reply only when it holds exactly one block; otherwise it answers with a
  // format error, which is feedback, not the environment's output.
  const blocks = shellBlocks(text);
  const [only] = blocks;
  return blocks.length === 1 && only !== undefined
    ? [{ action: { type: 'command', command: only, interpreter: 'bash' }, callId: null }]
    : [];
}

function exitCodeOf(
  message: Record<string, unknown>,
  parsed: number | null,
  at: string,
): number | null {
  const extra = isRecord(message.extra) ? message.extra : null;
  if (extra === null) return parsed;
  return optionalNumber(extra.returncode, `${at}.extra.returncode`) ?? parsed;
}

/**
 * mini-swe-agent trajectories: a `.traj.json` (`{info, messages, trajectory_format}`, formats
 * mini-swe-agent-1 and 1.1) or a bare list of messages (older versions, `agent.messages`). An
 * assistant message with one shell block (```bash, ```mswea_bash_command) or tool calls is an action;
 * the next user/tool message is its observation: `<returncode>` becomes `exitCode` in the step's
 * metadata and the `<output>` text the observation. Other messages are message steps.
 */
export const miniSweAgentAdapter: FormatAdapter = {
  format: 'mini-swe-agent',
  layout: { kind: 'json-document' },
  sniff({ fileName, head }) {
    // save.py writes `trajectory_format` last, after the messages: in a long run only `info`, which
    // names the version and the minisweagent classes, is within the head.
    if (/^\s*\{/.test(head))
      return FORMAT_KEY.test(head) || (/"info"\s*:/.test(head) && MINI_INFO.test(head));
    return (
      /^\s*\[\s*\{/.test(head) &&
      /"role"\s*:\s*"(system|user|assistant)"/.test(head) &&
      (MINI_MARKERS.test(head) || /\.traj\.json$/i.test(fileName))
    );
  },
  convert(record, context) {
    const root = isArray(record) ? { messages: record } : expectObject(record, '');
    const path = isArray(record) ? '' : 'messages';
    const info = isRecord(root.info) ? root.info : {};
    const config = isRecord(info.config) ? info.config : {};
    const model = isRecord(config.model) ? config.model : {};
    const steps: StepDraft[] = [];
    let pending: PendingAction[] = [];
    let systemPrompt: string | null = null;
    let task: string | null = null;
    let exit: Record<string, unknown> | null = null;

    expectArray(root.messages, 'messages').forEach((raw, i) => {
      const at = `${path}[${i}]`;
      const message = expectObject(raw, at);
      const role = expectString(message.role, `${at}.role`);
      const text = contentText(message.content, `${at}.content`) ?? '';
      if (role === 'system' && systemPrompt === null) {
        systemPrompt = text;
        return;
      }
      if (role === 'exit') {
        // mini-swe-agent 2 closes with an exit message holding the status and the submission.
        exit = isRecord(message.extra) ? message.extra : { content: text };
        return;
      }
      if (role === 'assistant') {
        pending = [];
        const actions = actionsOf(message, text, at, context.notes);
        if (actions.length === 0) {
          steps.push(messageStep('agent', text));
          return;
        }
        const reasoning = withoutShellBlocks(text);
        actions.forEach(({ action, callId }, n) => {
          const step = stepDraft({
            actor: 'agent',
            action,
            reasoning: n === 0 && reasoning !== '' ? reasoning : null,
          });
          steps.push(step);
          pending.push({ step, callId });
        });
        return;
      }
      if (role !== 'user' && role !== 'tool' && role !== 'system')
        throw new RecordError(`${at}.role`, `unknown role "${role}"`);
      const callId = optionalId(message.tool_call_id, `${at}.tool_call_id`);
      const slot = callId === null ? 0 : pending.findIndex((entry) => entry.callId === callId);
      const answered = slot === -1 ? undefined : pending[slot];
      if (answered === undefined || role === 'system') {
        if (role === 'user' && task === null) task = text;
        steps.push(messageStep('user', text, role === 'system' ? { metadata: { role } } : {}));
        return;
      }
      pending.splice(slot, 1);
      const result = parseShellResult(text);
      const exitCode = exitCodeOf(message, result.exitCode, at);
      answered.step.observation = observationOf(result.output, callId ?? answered.callId, {
        shellOutput: true,
        markedError: false,
      });
      if (exitCode !== null) answered.step.metadata = { ...answered.step.metadata, exitCode };
    });

    const exitInfo: Record<string, unknown> = exit ?? {};
    const status = optionalString(info.exit_status ?? exitInfo.exit_status, 'info.exit_status');
    const instanceId = optionalId(root.instance_id ?? info.instance_id, 'instance_id');
    return [
      buildTrajectory(
        {
          externalId: instanceId ?? baseName(context.file).replace(/\.traj\.json$|\.json$/i, ''),
          sourceFormat: 'mini-swe-agent',
          sourceBenchmark: null,
          // mini-swe-agent solves repository issues from a bash shell.
          domain: 'swe',
          task,
          systemPrompt,
          tools: null,
          agentModel: optionalString(model.model_name, 'info.config.model.model_name'),
          outcome: { reward: null, success: null },
          steps,
          metadata: metadataOf({
            trajectoryFormat: root.trajectory_format,
            miniVersion: info.mini_version,
            exitStatus: status ?? undefined,
            submission: info.submission ?? exitInfo.submission,
            modelStats: info.model_stats,
          }),
        },
        record,
        context,
      ),
    ];
  },
};
