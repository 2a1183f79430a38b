import type { Domain } from '@terrarium/schema';
import type { FormatAdapter } from '../adapter';
import {
  contentText,
  expectArray,
  expectObject,
  expectString,
  isArray,
  isRecord,
  metadataOf,
  optionalArray,
  optionalNumber,
  optionalString,
} from './json-guards';
import { observationOf } from './observation-kind';
import { buildTrajectory, stepDraft, timingAt, type StepDraft } from './trajectory-builder';

/**
 * SWE-agent's own commands (its agent-computer interface, ACI), including the CTF tools; everything
 * else the agent types is a bash command. Output of bash commands is rendered as a terminal.
 */
const ACI_COMMANDS = new Set([
  'open',
  'goto',
  'scroll_up',
  'scroll_down',
  'create',
  'edit',
  'insert',
  'append',
  'search_dir',
  'search_file',
  'find_file',
  'filemap',
  'submit',
  'skip',
  'str_replace_editor',
  'exit_forfeit',
  'decompile',
  'disassemble',
  'debug_start',
  'debug_add_breakpoint',
  'debug_continue',
  'debug_step',
  'debug_exec',
  'debug_stop',
  'connect_start',
  'connect_sendline',
  'connect_exec',
  'connect_stop',
]);

function interpreterOf(command: string): 'aci' | 'bash' {
  const first = command.trimStart().split(/\s/, 1)[0] ?? '';
  return ACI_COMMANDS.has(first) ? 'aci' : 'bash';
}

function commandStep(
  command: string,
  output: string | null,
  init: {
    reasoning: string | null;
    callId: string | null;
    durationMs: number | null;
    metadata: Record<string, unknown>;
  },
): StepDraft {
  const interpreter = interpreterOf(command);
  return stepDraft({
    actor: 'agent',
    action: { type: 'command', command, interpreter },
    observation:
      output === null
        ? null
        : observationOf(output, init.callId, { shellOutput: interpreter === 'bash' }),
    reasoning: init.reasoning,
    timing: timingAt(null, init.durationMs),
    metadata: metadataOf(init.metadata),
  });
}

interface HistoryFacts {
  systemPrompt: string | null;
  task: string | null;
}

/** The system prompt, and the task: the first user message that is not a demonstration, cut before the instructions. */
function historyFacts(history: unknown[]): HistoryFacts {
  let systemPrompt: string | null = null;
  let task: string | null = null;
  history.forEach((raw, i) => {
    if (!isRecord(raw)) return;
    const text = contentText(raw.content, `history[${i}].content`);
    if (raw.role === 'system' && systemPrompt === null) systemPrompt = text;
    if (raw.role === 'user' && task === null && raw.is_demo !== true && text !== null) {
      const cut = text.indexOf('\nINSTRUCTIONS:');
      task = (cut === -1 ? text : text.slice(0, cut)).trim();
    }
  });
  return { systemPrompt, task };
}

/** Steps of a `history`-only file: each assistant `action` with the observation message that follows it. */
function stepsFromHistory(history: unknown[]): StepDraft[] {
  const steps: StepDraft[] = [];
  let open: { step: StepDraft; index: number } | null = null;
  history.forEach((raw, i) => {
    const at = `history[${i}]`;
    const message = expectObject(raw, at);
    const role = expectString(message.role, `${at}.role`);
    if (role === 'assistant' && typeof message.action === 'string') {
      const calls = optionalArray(message.tool_calls, `${at}.tool_calls`);
      const firstCall = calls[0];
      const callId = isRecord(firstCall) && typeof firstCall.id === 'string' ? firstCall.id : null;
      const step = commandStep(message.action, null, {
        reasoning: optionalString(message.thought, `${at}.thought`),
        callId,
        durationMs: null,
        metadata: { toolCalls: message.tool_calls },
      });
      steps.push(step);
      open = { step, index: i };
      return;
    }
    const isObservation =
      role === 'tool' || (role === 'user' && message.message_type === 'observation');
    if (isObservation && open !== null) {
      const output = contentText(message.content, `${at}.content`) ?? '';
      const ids = optionalArray(message.tool_call_ids, `${at}.tool_call_ids`);
      const callId = typeof ids[0] === 'string' ? ids[0] : null;
      const action = open.step.action;
      open.step.observation = observationOf(output, callId, {
        shellOutput: action.type === 'command' && action.interpreter === 'bash',
      });
      open = null;
    }
  });
  return steps;
}

function agentModelOf(replayConfig: unknown): string | null {
  let config = replayConfig;
  if (typeof config === 'string') {
    try {
      config = JSON.parse(config);
    } catch {
      return null;
    }
  }
  if (!isRecord(config) || !isRecord(config.agent) || !isRecord(config.agent.model)) return null;
  const name = config.agent.model.name;
  return typeof name === 'string' ? name : null;
}

/** SWE-agent `.traj`: `{environment, trajectory[], history[], info, replay_config?}`, one file per run. */
export const sweAgentAdapter: FormatAdapter = {
  format: 'swe-agent',
  layout: { kind: 'json-document' },
  sniff({ fileName, head }) {
    if (/\.traj$/i.test(fileName)) return /^\s*\{/.test(head);
    return (
      /^\s*\{/.test(head) &&
      ((/"history"\s*:\s*\[/.test(head) && /"message_type"\s*:/.test(head)) ||
        (/"trajectory"\s*:\s*\[/.test(head) &&
          /"thought"\s*:/.test(head) &&
          /"response"\s*:/.test(head)))
    );
  },
  convert(record, context) {
    const root = expectObject(record, '');
    const history = optionalArray(root.history, 'history');
    const facts = historyFacts(history);
    let steps: StepDraft[];
    if (root.trajectory !== undefined && root.trajectory !== null) {
      steps = expectArray(root.trajectory, 'trajectory').map((raw, i) => {
        const at = `trajectory[${i}]`;
        const entry = expectObject(raw, at);
        const executionTime = optionalNumber(entry.execution_time, `${at}.execution_time`);
        let state = entry.state;
        if (typeof state === 'string') {
          try {
            state = JSON.parse(state);
          } catch {
            // Older files store state as a JSON string; an unparsable one is kept as text.
          }
        }
        return commandStep(
          expectString(entry.action, `${at}.action`),
          expectString(entry.observation, `${at}.observation`),
          {
            reasoning: optionalString(entry.thought, `${at}.thought`),
            callId: null,
            durationMs: executionTime === null ? null : Math.round(executionTime * 1000),
            metadata: { state },
          },
        );
      });
    } else {
      steps = stepsFromHistory(expectArray(root.history, 'history'));
    }
    // CTF demonstrations solve security puzzles in a shell, not issues in a code repository.
    const isCtf = facts.task !== null && /\bCTF challenge\b/.test(facts.task);
    const domain: Domain = isCtf ? 'terminal' : 'swe';
    const info = isRecord(root.info) ? root.info : {};
    return [
      buildTrajectory(
        {
          externalId: context.file,
          sourceFormat: 'swe-agent',
          sourceBenchmark: isCtf ? 'swe-agent/ctf' : 'swe-agent/swe',
          domain,
          task: facts.task,
          systemPrompt: facts.systemPrompt,
          tools: null,
          agentModel: agentModelOf(root.replay_config),
          outcome: { reward: null, success: null },
          steps,
          metadata: metadataOf({
            environment: root.environment,
            exitStatus: info.exit_status,
            modelStats: info.model_stats,
            historyOnly: isArray(root.trajectory) ? undefined : true,
          }),
        },
        record,
        context,
      ),
    ];
  },
};
