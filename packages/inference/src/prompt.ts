import type { Action, Domain } from '@terrarium/schema';
import { actionText, type Transition } from '@terrarium/worlds';

/**
 * The prompt format of the bundled byte-level world model (version 1). Training examples are
 * rendered by this very function (models/export-examples.ts), so training and inference cannot
 * drift apart; models/train.py only reads the rendered bytes.
 *
 *   @<domain>\n
 *   A: <earlier action, ≤ 40 bytes>\n        ┐ the last 1–2 transitions,
 *   O: <earlier observation, ≤ 64 bytes>\n   ┘ oldest first
 *   A: <current action, ≤ 128 bytes>\n
 *   O:                                        ← the model continues with the observation, then EOS
 *
 * Limits are in UTF-8 bytes and cut on character boundaries, so a prompt is at most 370 bytes and
 * leaves at least 142 positions of the 512-token context for the observation.
 */
export const PROMPT_FORMAT_VERSION = 1;

export const PROMPT_LIMITS = Object.freeze({
  historyTransitions: 2,
  historyActionBytes: 40,
  historyObservationBytes: 64,
  actionBytes: 128,
});

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/** The longest prefix of `text` whose UTF-8 encoding fits in `maxBytes`, never splitting a character. */
export function truncateUtf8(text: string, maxBytes: number): string {
  const bytes = encoder.encode(text);
  if (bytes.length <= maxBytes) return text;
  let end = maxBytes;
  // Continuation bytes are 0b10xxxxxx: back up to the start of the character that would be cut.
  while (end > 0 && ((bytes[end] ?? 0) & 0xc0) === 0x80) end--;
  return decoder.decode(bytes.subarray(0, end));
}

/** Newlines inside a field would read as the next `A:`/`O:` line, so they are written as `\n`. */
function oneLine(text: string): string {
  return text.replace(/\\/g, '\\\\').replace(/\r?\n/g, '\\n');
}

export function renderPrompt(
  domain: Domain,
  history: readonly Transition[],
  action: Action,
): string {
  const lines = [`@${domain}`];
  for (const earlier of history.slice(-PROMPT_LIMITS.historyTransitions)) {
    lines.push(
      `A: ${truncateUtf8(oneLine(actionText(earlier.action)), PROMPT_LIMITS.historyActionBytes)}`,
    );
    lines.push(
      `O: ${truncateUtf8(oneLine(earlier.observation.content), PROMPT_LIMITS.historyObservationBytes)}`,
    );
  }
  lines.push(`A: ${truncateUtf8(oneLine(actionText(action)), PROMPT_LIMITS.actionBytes)}`);
  return `${lines.join('\n')}\nO: `;
}
