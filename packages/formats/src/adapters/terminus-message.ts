import { isArray, isRecord } from './json-guards';

/** What a Terminus agent asked for in one reply: keystrokes for the tmux pane, and its reasoning. */
export interface TerminusReply {
  /** Every command's keystrokes, concatenated in order (the pane receives them one after another). */
  keys: string;
  commandCount: number;
  /** The reply's analysis and plan, which explain the keystrokes. */
  reasoning: string | null;
  taskComplete: boolean;
}

function joined(parts: (string | null)[]): string | null {
  const kept = parts.filter((part): part is string => part !== null && part.trim() !== '');
  return kept.length === 0 ? null : kept.join('\n\n');
}

function textField(value: unknown): string | null {
  return typeof value === 'string' ? value : null;
}

/**
 * Terminus-2's JSON reply (`{analysis, plan, commands: [{keystrokes, duration}], task_complete}`),
 * which ATIF files written with raw content keep as the agent step's message. Models often wrap the
 * object in prose or a code fence, so the outermost braces are parsed. Null when it is not one.
 */
function jsonReply(text: string): TerminusReply | null {
  const start = text.indexOf('{');
  const end = text.lastIndexOf('}');
  if (start === -1 || end <= start) return null;
  let parsed: unknown;
  try {
    parsed = JSON.parse(text.slice(start, end + 1));
  } catch {
    return null;
  }
  if (!isRecord(parsed) || !isArray(parsed.commands)) return null;
  const keys: string[] = [];
  for (const command of parsed.commands) {
    if (!isRecord(command) || typeof command.keystrokes !== 'string') return null;
    keys.push(command.keystrokes);
  }
  return {
    keys: keys.join(''),
    commandCount: keys.length,
    reasoning: joined([textField(parsed.analysis), textField(parsed.plan)]),
    taskComplete: parsed.task_complete === true || parsed.task_complete === 'true',
  };
}

const XML_KEYSTROKES = /<keystrokes\b[^>]*>([\s\S]*?)<\/keystrokes>/g;

function xmlElement(text: string, name: string): string | null {
  const match = new RegExp(`<${name}>([\\s\\S]*?)</${name}>`).exec(text);
  return match?.[1]?.trim() ?? null;
}

/** Terminus-2's XML reply (`<analysis>`, `<plan>`, `<commands><keystrokes …>`, `<task_complete>`). */
function xmlReply(text: string): TerminusReply | null {
  if (!/<commands>/.test(text) && !/<task_complete>/.test(text)) return null;
  const keys = [...text.matchAll(XML_KEYSTROKES)].map((match) => match[1] ?? '');
  return {
    keys: keys.join(''),
    commandCount: keys.length,
    reasoning: joined([xmlElement(text, 'analysis'), xmlElement(text, 'plan')]),
    taskComplete: xmlElement(text, 'task_complete') === 'true',
  };
}

export function parseTerminusReply(text: string): TerminusReply | null {
  return jsonReply(text) ?? xmlReply(text);
}
