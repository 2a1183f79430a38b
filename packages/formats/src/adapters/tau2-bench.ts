import type { Actor, ToolSchema } from '@terrarium/schema';
import { RecordError, type FormatAdapter } from '../adapter';
import { stepsFromChat, type ChatEntry, type ChatToolCall } from './chat-steps';
import {
  contentText,
  expectArray,
  expectId,
  expectObject,
  expectString,
  isArray,
  isRecord,
  metadataOf,
  optionalArray,
  optionalBoolean,
  optionalId,
  optionalNumber,
  optionalString,
  toJsonValue,
} from './json-guards';
import { normalizeToolSchemas } from './tool-schemas';
import { buildTrajectory, rewardOutcome, timingAt } from './trajectory-builder';

/** What every simulation of one results file shares, read once from the file's header. */
interface Tau2Header {
  domain: string | null;
  policy: string | null;
  agentModel: string | null;
  userModel: string | null;
  tools: ToolSchema[] | null;
  tasks: Map<string, Record<string, unknown>>;
  /** The members it was read from: the streaming reader may add members after the first record. */
  from: { info: unknown; tasks: unknown };
}

const headers = new WeakMap<Record<string, unknown>, Tau2Header>();

function readHeader(header: Record<string, unknown>): Tau2Header {
  const cached = headers.get(header);
  if (
    cached !== undefined &&
    cached.from.info === header.info &&
    cached.from.tasks === header.tasks
  )
    return cached;
  const info = isRecord(header.info) ? header.info : {};
  const environment = isRecord(info.environment_info) ? info.environment_info : {};
  const agentInfo = isRecord(info.agent_info) ? info.agent_info : {};
  const userInfo = isRecord(info.user_info) ? info.user_info : {};
  const tasks = new Map<string, Record<string, unknown>>();
  optionalArray(header.tasks, 'tasks').forEach((task, i) => {
    const entry = expectObject(task, `tasks[${i}]`);
    tasks.set(expectId(entry.id, `tasks[${i}].id`), entry);
  });
  const toolDefs = environment.tool_defs;
  const parsed: Tau2Header = {
    domain: optionalString(environment.domain_name, 'info.environment_info.domain_name'),
    policy: optionalString(environment.policy, 'info.environment_info.policy'),
    agentModel: typeof agentInfo.llm === 'string' ? agentInfo.llm : null,
    userModel: typeof userInfo.llm === 'string' ? userInfo.llm : null,
    // `tool_defs` is null in the published runs; a list, when present, is used as given.
    tools: isArray(toolDefs)
      ? normalizeToolSchemas(toolDefs, 'info.environment_info.tool_defs')
      : null,
    tasks,
    from: { info: header.info, tasks: header.tasks },
  };
  headers.set(header, parsed);
  return parsed;
}

function humanize(key: string): string {
  const words = key.replace(/_/g, ' ');
  return words.charAt(0).toUpperCase() + words.slice(1);
}

/** tau2 stores structured instructions; they read best as labelled paragraphs, in their order. */
function instructionsText(value: unknown, path: string): string | null {
  if (value === undefined || value === null) return null;
  if (typeof value === 'string') return value;
  if (!isRecord(value)) return JSON.stringify(toJsonValue(value, path));
  const parts: string[] = [];
  for (const [key, field] of Object.entries(value)) {
    if (field === null || field === undefined) continue;
    const text =
      typeof field === 'string' ? field : JSON.stringify(toJsonValue(field, `${path}.${key}`));
    parts.push(`${humanize(key)}:\n${text}`);
  }
  return parts.join('\n\n');
}

function chatEntries(messages: unknown[]): ChatEntry[] {
  return messages.map((raw, i): ChatEntry => {
    const at = `messages[${i}]`;
    const message = expectObject(raw, at);
    const role = expectString(message.role, `${at}.role`);
    const timestamp = optionalString(message.timestamp, `${at}.timestamp`);
    if (role === 'system')
      return { kind: 'system', text: contentText(message.content, `${at}.content`) ?? '' };
    if (role === 'tool') {
      return {
        kind: 'tool-result',
        path: at,
        callId: optionalId(message.id, `${at}.id`),
        name: null,
        content: contentText(message.content, `${at}.content`) ?? '',
        markedError: optionalBoolean(message.error, `${at}.error`) === true,
      };
    }
    if (role !== 'user' && role !== 'assistant')
      throw new RecordError(`${at}.role`, `unknown role "${role}"`);
    const speaker: Actor = role === 'user' ? 'user' : 'agent';
    const toolCalls = optionalArray(message.tool_calls, `${at}.tool_calls`).map(
      (rawCall, j): ChatToolCall => {
        const callPath = `${at}.tool_calls[${j}]`;
        const call = expectObject(rawCall, callPath);
        const requestor = optionalString(call.requestor, `${callPath}.requestor`);
        return {
          callId: optionalId(call.id, `${callPath}.id`),
          name: expectString(call.name, `${callPath}.name`),
          arguments: toJsonValue(call.arguments ?? {}, `${callPath}.arguments`),
          actor: requestor === null ? speaker : requestor === 'user' ? 'user' : 'agent',
        };
      },
    );
    return {
      kind: 'turn',
      actor: speaker,
      text: contentText(message.content, `${at}.content`),
      toolCalls,
      reasoning: typeof message.reasoning === 'string' ? message.reasoning : null,
      timing: timingAt(timestamp),
      metadata: metadataOf({ turnIdx: message.turn_idx }),
    };
  });
}

/** tau2-bench results: `{timestamp, info, tasks, simulations}`, one trajectory per simulation. */
export const tau2BenchAdapter: FormatAdapter = {
  format: 'tau2-bench',
  layout: { kind: 'object-stream', key: 'simulations' },
  sniff({ head }) {
    return (
      /^\s*\{/.test(head) &&
      /"environment_info"\s*:/.test(head) &&
      /"domain_name"\s*:/.test(head) &&
      /"(agent_info|user_info)"\s*:/.test(head)
    );
  },
  convert(record, context) {
    const simulation = expectObject(record, '');
    const header = readHeader(context.header);
    const taskId = expectId(simulation.task_id, 'task_id');
    const task = header.tasks.get(taskId);
    const scenario = task !== undefined && isRecord(task.user_scenario) ? task.user_scenario : null;
    const rewardInfo =
      simulation.reward_info === undefined || simulation.reward_info === null
        ? null
        : expectObject(simulation.reward_info, 'reward_info');
    const reward =
      rewardInfo === null ? null : optionalNumber(rewardInfo.reward, 'reward_info.reward');
    const chat = stepsFromChat(chatEntries(expectArray(simulation.messages, 'messages')));
    const duration = optionalNumber(simulation.duration, 'duration');
    return [
      buildTrajectory(
        {
          externalId: expectId(simulation.id, 'id'),
          sourceFormat: 'tau2-bench',
          sourceBenchmark: header.domain === null ? 'tau2-bench' : `tau2-bench/${header.domain}`,
          domain: 'tool',
          task:
            scenario === null
              ? null
              : instructionsText(scenario.instructions, 'user_scenario.instructions'),
          systemPrompt: chat.systemPrompt ?? header.policy,
          tools: header.tools,
          agentModel: header.agentModel,
          outcome: rewardOutcome(reward),
          steps: chat.steps,
          metadata: metadataOf({
            taskId,
            trial: simulation.trial,
            terminationReason: simulation.termination_reason,
            startTime: simulation.start_time,
            durationMs: duration === null ? undefined : Math.round(duration * 1000),
            agentCost: simulation.agent_cost,
            userCost: simulation.user_cost,
            userModel: header.userModel ?? undefined,
            persona: scenario?.persona ?? undefined,
          }),
        },
        record,
        context,
      ),
    ];
  },
};
