import type { Action, Observation } from '@terrarium/schema';
import { canonicalJson } from './canonical-json';

/**
 * The action as the agent would have written it: a tool call as `{"name","arguments"}` JSON, a
 * command or keystrokes verbatim, a message's text.
 */
export function actionText(action: Action): string {
  switch (action.type) {
    case 'tool_call':
    case 'browser':
      return JSON.stringify({ name: action.name, arguments: action.arguments });
    case 'command':
      return action.command;
    case 'keystrokes':
      return action.keys;
    case 'message':
      return action.text;
  }
}

/** The tool or program an action invokes: a tool name, or a command's first word (lower case). */
export function actionHead(action: Action): string {
  switch (action.type) {
    case 'tool_call':
    case 'browser':
      return action.name;
    case 'command':
      return firstWord(action.command);
    case 'keystrokes':
      return firstWord(action.keys);
    case 'message':
      return '';
  }
}

function firstWord(text: string): string {
  const match = /[^\s;|&()]+/.exec(text);
  return match === null ? '' : match[0].toLowerCase();
}

/**
 * Identity of an action regardless of call ids: type, name and canonical JSON arguments (or the
 * command text). Two calls with the same key ask the environment the same thing.
 */
export function actionKey(action: Action): string {
  switch (action.type) {
    case 'tool_call':
    case 'browser':
      return `${action.type}\u0000${action.name}\u0000${canonicalJson(action.arguments)}`;
    case 'command':
      return `command\u0000${action.interpreter ?? ''}\u0000${action.command}`;
    case 'keystrokes':
      return `keystrokes\u0000${action.keys}`;
    case 'message':
      return `message\u0000${action.text}`;
  }
}

/** Identity of an observation regardless of call ids. */
export function observationKey(observation: Observation): string {
  return `${observation.kind}\u0000${observation.content}`;
}
