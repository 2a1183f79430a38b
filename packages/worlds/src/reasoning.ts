export interface SplitReply {
  observation: string;
  /** Absent when the reply carried no reasoning. */
  reasoning?: string;
}

const OPEN = '<think>';
const CLOSE = '</think>';

/**
 * Separates a model's reasoning from its predicted observation. Reasoning comes either in a
 * `reasoning_content` field (vLLM/SGLang reasoning parsers) or inline at the start of the reply:
 * `<think>…</think>observation`, or `…</think>observation` when the chat template already opened
 * the block in the prompt (Qwen3 style). A block never closed (output cut at max tokens) is all
 * reasoning and leaves an empty observation.
 */
export function splitReasoning(content: string, reasoningContent?: string | null): SplitReply {
  const parts: string[] = [];
  if (reasoningContent !== undefined && reasoningContent !== null && reasoningContent !== '') {
    parts.push(reasoningContent);
  }
  let observation = content;
  const leading = content.length - content.trimStart().length;
  if (content.startsWith(OPEN, leading)) {
    const start = leading + OPEN.length;
    const end = content.indexOf(CLOSE, start);
    if (end === -1) {
      parts.push(content.slice(start).trim());
      observation = '';
    } else {
      parts.push(content.slice(start, end).trim());
      observation = stripLeadingNewlines(content.slice(end + CLOSE.length));
    }
  } else {
    const end = content.indexOf(CLOSE);
    if (end !== -1 && !content.slice(0, end).includes(OPEN)) {
      parts.push(content.slice(0, end).trim());
      observation = stripLeadingNewlines(content.slice(end + CLOSE.length));
    }
  }
  const reasoning = parts.filter((part) => part !== '').join('\n');
  return reasoning === '' && parts.length === 0 ? { observation } : { observation, reasoning };
}

function stripLeadingNewlines(text: string): string {
  return text.replace(/^(?:\r?\n)+/, '');
}
