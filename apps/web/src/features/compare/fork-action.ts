import { JsonValue, type Action } from '@terrarium/schema';

/** An action as the "What if…" editor holds it: text fields a person edits. */
export type ActionDraft =
  | { type: 'tool_call' | 'browser'; name: string; argumentsText: string }
  | { type: 'command'; command: string }
  | { type: 'keystrokes'; keys: string };

export type DraftField = 'name' | 'arguments' | 'command' | 'keys';

export type DraftResult =
  { ok: true; action: Action } | { ok: false; field: DraftField; message: string };

/** The editable form of an action; null for a message, which the environment never answers. */
export function draftOf(action: Action): ActionDraft | null {
  switch (action.type) {
    case 'tool_call':
    case 'browser':
      return {
        type: action.type,
        name: action.name,
        // Arguments the source held as a non-JSON string are shown as that string, to be fixed.
        argumentsText:
          typeof action.arguments === 'string'
            ? action.arguments
            : JSON.stringify(action.arguments, null, 2),
      };
    case 'command':
      return { type: 'command', command: action.command };
    case 'keystrokes':
      return { type: 'keystrokes', keys: action.keys };
    case 'message':
      return null;
  }
}

function parseArguments(text: string): DraftResult | { ok: true; value: JsonValue } {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    return { ok: false, field: 'arguments', message: `not valid JSON: ${reason}` };
  }
  const checked = JsonValue.safeParse(parsed);
  if (!checked.success) return { ok: false, field: 'arguments', message: 'not a JSON value' };
  const value = checked.data;
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return { ok: false, field: 'arguments', message: 'expected a JSON object of arguments' };
  }
  return { ok: true, value };
}

/**
 * The action a draft describes, or the field that is wrong and why. A tool call keeps the original
 * call id, so the simulated observation answers the same call.
 */
export function actionFromDraft(draft: ActionDraft, original: Action): DraftResult {
  switch (draft.type) {
    case 'tool_call':
    case 'browser': {
      const name = draft.name.trim();
      if (name === '') return { ok: false, field: 'name', message: 'a tool name is required' };
      const parsed = parseArguments(draft.argumentsText);
      if (!('value' in parsed)) return parsed;
      if (draft.type === 'browser') {
        return { ok: true, action: { type: 'browser', name, arguments: parsed.value } };
      }
      const callId = original.type === 'tool_call' ? original.callId : null;
      return { ok: true, action: { type: 'tool_call', name, arguments: parsed.value, callId } };
    }
    case 'command': {
      if (draft.command.trim() === '') {
        return { ok: false, field: 'command', message: 'a command line is required' };
      }
      const interpreter = original.type === 'command' ? original.interpreter : null;
      return { ok: true, action: { type: 'command', command: draft.command, interpreter } };
    }
    case 'keystrokes':
      if (draft.keys === '')
        return { ok: false, field: 'keys', message: 'keystrokes are required' };
      return { ok: true, action: { type: 'keystrokes', keys: draft.keys } };
  }
}
