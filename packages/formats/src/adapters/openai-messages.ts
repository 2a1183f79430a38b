import type { FormatAdapter } from '../adapter';
import { stepsFromChat } from './chat-steps';
import {
  baseName,
  expectArray,
  expectObject,
  isArray,
  metadataOf,
  optionalId,
  optionalString,
} from './json-guards';
import { chatEntriesFromOpenAiMessages } from './openai-chat';
import { normalizeToolSchemas } from './tool-schemas';
import { buildTrajectory } from './trajectory-builder';

function firstLine(head: string): string {
  const end = head.indexOf('\n');
  return (end === -1 ? head : head.slice(0, end)).trim();
}

/** OpenAI chat-messages JSONL: each line `{messages: [...], tools?: [...]}` or a bare array of messages. */
export const openAiMessagesAdapter: FormatAdapter = {
  format: 'openai-messages',
  layout: { kind: 'jsonl' },
  sniff({ head }) {
    const line = firstLine(head);
    if (line.startsWith('{'))
      return /^\{[^\n]*"messages"\s*:\s*\[/.test(line) && /"role"\s*:/.test(line);
    return /^\[\s*\{\s*"(role|content)"\s*:/.test(line) && /"role"\s*:/.test(line);
  },
  convert(record, context) {
    const root: Record<string, unknown> = isArray(record)
      ? { messages: record }
      : expectObject(record, '');
    const path = isArray(record) ? '' : 'messages';
    const messages = expectArray(root.messages, path);
    const chat = stepsFromChat(chatEntriesFromOpenAiMessages(messages, path, context.notes));
    const tools = root.tools ?? root.functions;
    const id = optionalId(root.id, 'id');
    return [
      buildTrajectory(
        {
          externalId: id ?? `${baseName(context.file)}:${context.line}`,
          sourceFormat: 'openai-messages',
          sourceBenchmark: null,
          domain: 'tool',
          task: chat.firstUserText,
          systemPrompt: chat.systemPrompt,
          tools:
            tools === undefined || tools === null
              ? null
              : normalizeToolSchemas(tools, root.tools === undefined ? 'functions' : 'tools'),
          agentModel: optionalString(root.model, 'model'),
          outcome: { reward: null, success: null },
          steps: chat.steps,
          metadata: metadataOf({ metadata: root.metadata }),
        },
        record,
        context,
      ),
    ];
  },
};
