import type { Observation, ObservationKind } from '@terrarium/schema';

export interface KindHints {
  /** The source marks this result as an error (tau2 `error: true`, OpenHands `ErrorObservation`). */
  markedError?: boolean;
  /** Output of a shell or a terminal (bash command, tmux keystrokes): rendered as a terminal. */
  shellOutput?: boolean;
}

// ESC followed by '[' (CSI) or ']' (OSC): what terminal colour and cursor codes start with.
const ESC = String.fromCharCode(27);

function hasAnsiEscape(content: string): boolean {
  return content.includes(`${ESC}[`) || content.includes(`${ESC}]`);
}

const STARTS_WITH_ERROR = /^\s*Error/;
// A whole HTML document (a fetched page, a browser snapshot); fragments inside other output stay text.
const HTML_DOCUMENT = /^\s*(?:<!doctype html[\s>]|<html[\s>])/i;

function isJsonWhitespace(code: number): boolean {
  return code === 0x20 || code === 0x0a || code === 0x0d || code === 0x09;
}

// What may follow the opening bracket of a JSON container (after whitespace).
const ARRAY_ITEM_START = /["{[\]\-0-9tfn]/;

/**
 * True when the whole text is a JSON object or array. Cheap checks on the first and last characters
 * (and the one after the bracket) come first: most non-JSON text, such as Python reprs like
 * `[('people',)]`, is rejected without a parse, and a failed parse (an exception) is slow.
 */
function looksLikeJsonContainer(content: string): boolean {
  let start = 0;
  let end = content.length - 1;
  while (start <= end && isJsonWhitespace(content.charCodeAt(start))) start++;
  while (end >= start && isJsonWhitespace(content.charCodeAt(end))) end--;
  const first = content[start];
  const last = content[end];
  if (!((first === '{' && last === '}') || (first === '[' && last === ']'))) return false;
  let next = start + 1;
  while (next < end && isJsonWhitespace(content.charCodeAt(next))) next++;
  const inner = content[next] ?? '';
  if (first === '{' ? inner !== '"' && inner !== '}' : !ARRAY_ITEM_START.test(inner)) return false;
  try {
    JSON.parse(content);
    return true;
  } catch {
    return false;
  }
}

/**
 * How a viewer should render an observation. In order: `error` when the source marks it or the text
 * starts with "Error"; `json` when the whole text is a JSON object or array; `html` when it is a whole
 * HTML document (rendered only in a sandboxed iframe); `terminal` when it holds ANSI escapes or is a
 * shell's output; otherwise `text`.
 */
export function guessObservationKind(content: string, hints: KindHints = {}): ObservationKind {
  if (hints.markedError === true || STARTS_WITH_ERROR.test(content)) return 'error';
  if (looksLikeJsonContainer(content)) return 'json';
  if (HTML_DOCUMENT.test(content)) return 'html';
  if (hints.shellOutput === true || hasAnsiEscape(content)) return 'terminal';
  return 'text';
}

export function observationOf(
  content: string,
  callId: string | null,
  hints: KindHints = {},
): Observation {
  return { kind: guessObservationKind(content, hints), content, callId };
}
