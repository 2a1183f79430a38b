import type { Actor } from '@terrarium/schema';
import { RecordError, type RecordNote } from '../adapter';
import type { ChatEntry, ChatToolCall } from './chat-steps';
import {
  contentText,
  expectObject,
  expectString,
  optionalArray,
  optionalId,
  optionalString,
  parseArguments,
} from './json-guards';
import { timingAt } from './trajectory-builder';

/**
 * OpenAI chat-completions messages (used by tau-bench v1 and OpenAI-messages JSONL) as chat entries:
 * `tool_calls[].function.{name, arguments}` with arguments as a JSON string, results in `role: tool`
 * messages carrying `tool_call_id`; the legacy `function_call` / `role: function` pair is read too.
 * Arguments that are not JSON are kept as text and noted in `notes`.
 */
export function chatEntriesFromOpenAiMessages(
  messages: readonly unknown[],
  path: string,
  notes: RecordNote[],
): ChatEntry[] {
  const entries: ChatEntry[] = [];
  messages.forEach((raw, i) => {
    const at = `${path}[${i}]`;
    const message = expectObject(raw, at);
    const role = expectString(message.role, `${at}.role`);
    const text = contentText(message.content, `${at}.content`);
    if (role === 'system' || role === 'developer') {
      entries.push({ kind: 'system', text: text ?? '' });
      return;
    }
    if (role === 'tool' || role === 'function') {
      entries.push({
        kind: 'tool-result',
        path: at,
        callId: optionalId(message.tool_call_id, `${at}.tool_call_id`),
        name: optionalString(message.name, `${at}.name`),
        content: text ?? '',
        markedError: false,
      });
      return;
    }
    if (role !== 'user' && role !== 'assistant') {
      throw new RecordError(`${at}.role`, `unknown role "${role}"`);
    }
    const actor: Actor = role === 'user' ? 'user' : 'agent';
    const toolCalls: ChatToolCall[] = optionalArray(message.tool_calls, `${at}.tool_calls`).map(
      (rawCall, j) => {
        const callPath = `${at}.tool_calls[${j}]`;
        const call = expectObject(rawCall, callPath);
        const fn = expectObject(call.function, `${callPath}.function`);
        return {
          callId: optionalId(call.id, `${callPath}.id`),
          name: expectString(fn.name, `${callPath}.function.name`),
          arguments: parseArguments(fn.arguments, `${callPath}.function.arguments`, notes),
          actor,
        };
      },
    );
    if (message.function_call !== undefined && message.function_call !== null) {
      const fn = expectObject(message.function_call, `${at}.function_call`);
      toolCalls.push({
        callId: null,
        name: expectString(fn.name, `${at}.function_call.name`),
        arguments: parseArguments(fn.arguments, `${at}.function_call.arguments`, notes),
        actor,
      });
    }
    const reasoning =
      optionalString(message.reasoning_content, `${at}.reasoning_content`) ??
      (typeof message.reasoning === 'string' ? message.reasoning : null);
    entries.push({
      kind: 'turn',
      actor,
      text,
      toolCalls,
      reasoning,
      timing: timingAt(typeof message.timestamp === 'string' ? message.timestamp : null),
      metadata: {},
    });
  });
  return entries;
}
