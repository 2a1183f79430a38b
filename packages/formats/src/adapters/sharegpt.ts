import { RecordError, type FormatAdapter, type RecordContext, type RecordNote } from '../adapter';
import type { Trajectory } from '@terrarium/schema';
import { stepsFromChat, type ChatEntry, type ChatToolCall } from './chat-steps';
import {
  baseName,
  expectArray,
  expectObject,
  expectString,
  isArray,
  optionalId,
  optionalString,
  parseArguments,
} from './json-guards';
import { normalizeToolSchemas } from './tool-schemas';
import { buildTrajectory } from './trajectory-builder';

const USER_ROLES = new Set(['human', 'user']);
const AGENT_ROLES = new Set(['gpt', 'assistant', 'model', 'chatgpt', 'bing', 'bard']);

/** A `function_call` value: JSON `{name, arguments}`, or a list of them for parallel calls. */
function functionCalls(value: string, path: string, notes: RecordNote[]): ChatToolCall[] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(value);
  } catch {
    throw new RecordError(path, 'function_call value is not JSON');
  }
  const calls = isArray(parsed) ? parsed : [parsed];
  return calls.map((raw, i) => {
    const at = isArray(parsed) ? `${path}[${i}]` : path;
    const call = expectObject(raw, at);
    // Some writers name the arguments `parameters`: a note names the field the file has.
    const key =
      call.arguments === undefined || call.arguments === null ? 'parameters' : 'arguments';
    return {
      callId: optionalId(call.id, `${at}.id`),
      name: expectString(call.name, `${at}.name`),
      arguments: parseArguments(call[key] ?? {}, `${at}.${key}`, notes),
      actor: 'agent',
    };
  });
}

function chatEntries(conversations: unknown[], notes: RecordNote[]): ChatEntry[] {
  return conversations.map((raw, i): ChatEntry => {
    const at = `conversations[${i}]`;
    const turn = expectObject(raw, at);
    const from = expectString(turn.from, `${at}.from`);
    const value = expectString(turn.value, `${at}.value`);
    if (from === 'system') return { kind: 'system', text: value };
    if (from === 'function_call') {
      return {
        kind: 'turn',
        actor: 'agent',
        text: null,
        toolCalls: functionCalls(value, `${at}.value`, notes),
        reasoning: null,
        timing: null,
        metadata: {},
      };
    }
    if (from === 'observation' || from === 'tool' || from === 'function') {
      return {
        kind: 'tool-result',
        path: at,
        callId: null,
        name: null,
        content: value,
        markedError: false,
      };
    }
    if (USER_ROLES.has(from) || AGENT_ROLES.has(from)) {
      return {
        kind: 'turn',
        actor: USER_ROLES.has(from) ? 'user' : 'agent',
        text: value,
        toolCalls: [],
        reasoning: null,
        timing: null,
        metadata: {},
      };
    }
    throw new RecordError(`${at}.from`, `unknown speaker "${from}"`);
  });
}

function convertShareGpt(record: unknown, context: RecordContext, position: string): Trajectory[] {
  const root = expectObject(record, '');
  const chat = stepsFromChat(
    chatEntries(expectArray(root.conversations, 'conversations'), context.notes),
  );
  const system = optionalString(root.system, 'system');
  const id = optionalId(root.id, 'id');
  return [
    buildTrajectory(
      {
        externalId: id ?? `${baseName(context.file)}${position}`,
        sourceFormat: 'sharegpt',
        sourceBenchmark: null,
        domain: 'tool',
        task: chat.firstUserText,
        systemPrompt: system ?? chat.systemPrompt,
        tools:
          root.tools === undefined || root.tools === null
            ? null
            : normalizeToolSchemas(root.tools, 'tools'),
        agentModel: optionalString(root.model, 'model'),
        outcome: { reward: null, success: null },
        steps: chat.steps,
        metadata: {},
      },
      record,
      context,
    ),
  ];
}

/** ShareGPT JSONL: each line `{conversations: [{from, value}], system?, tools?}`. */
export const shareGptAdapter: FormatAdapter = {
  format: 'sharegpt',
  layout: { kind: 'jsonl' },
  sniff({ head }) {
    return /^\s*\{[^\n]*"conversations"\s*:\s*\[/.test(head) && /"from"\s*:/.test(head);
  },
  convert: (record, context) => convertShareGpt(record, context, `:${context.line}`),
};

/** The same records as one JSON array (how many ShareGPT datasets are published). */
export const shareGptArrayAdapter: FormatAdapter = {
  format: 'sharegpt',
  layout: { kind: 'json-array' },
  sniff({ head }) {
    return (
      /^\s*\[\s*\{/.test(head) && /"conversations"\s*:\s*\[/.test(head) && /"from"\s*:/.test(head)
    );
  },
  convert: (record, context) => convertShareGpt(record, context, `#${context.ordinal}`),
};
