import { JsonValue, type Action, type Domain, type Observation } from '@terrarium/schema';
import { predictedKind, type Transition } from '@terrarium/worlds';

/**
 * An action typed in the playground, read as the chat endpoint reads one: `{"name", "arguments"}`
 * JSON is a call (a browser action in web and android worlds), anything else a command.
 */
export function actionFromText(text: string, domain: Domain): Action {
  const trimmed = text.trim();
  if (trimmed.startsWith('{')) {
    try {
      const parsed: unknown = JSON.parse(trimmed);
      const name: unknown =
        typeof parsed === 'object' && parsed !== null ? Reflect.get(parsed, 'name') : undefined;
      const args = JsonValue.safeParse(
        typeof parsed === 'object' && parsed !== null
          ? Reflect.get(parsed, 'arguments')
          : undefined,
      );
      if (typeof name === 'string' && args.success) {
        return domain === 'web' || domain === 'android'
          ? { type: 'browser', name, arguments: args.data }
          : { type: 'tool_call', name, arguments: args.data, callId: null };
      }
    } catch {
      // Not JSON after all: a command that starts with a brace.
    }
  }
  return { type: 'command', command: text, interpreter: null };
}

function observationFromText(text: string, domain: Domain): Observation {
  return { kind: predictedKind(text, domain), content: text, callId: null };
}

/** The earlier transition typed in the playground, or none when its action is left empty. */
export function historyFromText(action: string, observation: string, domain: Domain): Transition[] {
  if (action.trim() === '') return [];
  return [
    {
      action: actionFromText(action, domain),
      observation: observationFromText(observation, domain),
    },
  ];
}
