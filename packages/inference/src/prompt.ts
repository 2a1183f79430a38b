import type { Action, Domain } from '@terrarium/schema';
import {
  actionText,
  type RetrievalIndex,
  type SimContext,
  type Transition,
} from '@terrarium/worlds';

/**
 * The prompt formats of the bundled byte-level world model. Training examples are rendered by this
 * very module (models/export-examples.ts), so training and inference cannot drift apart;
 * models/train.py only reads the rendered bytes.
 *
 * Version 2 (retrieval-augmented, the shipped model): the k nearest recorded transitions, then the
 * current action. The model learns to copy what carries over from a neighbor's observation and to
 * change what the action's arguments change.
 *
 *   @<domain>\n
 *   N: <neighbor action, ≤ 96 bytes>\n          ┐ k = 2 nearest recorded transitions,
 *   R: <neighbor observation, ≤ 224 bytes>\n    ┘ best first
 *   A: <current action, ≤ 128 bytes>\n
 *   O:                                           ← the model continues with the observation, then EOS
 *
 * Version 1 (the model before): the last 1–2 transitions (`A:`/`O:`, ≤ 40/64 bytes), then the action.
 *
 * Limits are in UTF-8 bytes and cut on character boundaries; a cut neighbor field ends with `…` so
 * the model can tell a cut observation from a short one. A v2 prompt is at most 802 bytes and leaves
 * at least 222 positions of the 1024-token context for the observation.
 */
export const PROMPT_FORMAT_VERSION = 2;

export type PromptFormatVersion = 1 | 2;

/** How many recorded transitions a v2 prompt carries. */
export const PROMPT_NEIGHBORS = 2;

export const PROMPT_LIMITS = Object.freeze({
  historyTransitions: 2,
  historyActionBytes: 40,
  historyObservationBytes: 64,
  actionBytes: 128,
  neighborActionBytes: 96,
  neighborObservationBytes: 224,
});

/** A recorded transition shown to the model: what was asked and what the environment answered. */
export interface PromptNeighbor {
  action: Action;
  observation: string;
}

export interface PromptInput {
  domain: Domain;
  /** Rendered by version 1 only; version 2 leaves the history to the ranking of the neighbors. */
  history: readonly Transition[];
  action: Action;
  /** Best first; empty renders a prompt without retrieved context. */
  neighbors: readonly PromptNeighbor[];
}

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

/** Like truncateUtf8, but a cut text ends with `…` (3 bytes, counted in the limit). */
export function cutMarked(text: string, maxBytes: number): string {
  if (encoder.encode(text).length <= maxBytes) return text;
  return `${truncateUtf8(text, maxBytes - 3)}…`;
}

/**
 * Newlines inside a field would read as the next line of the prompt, so they are written as `\n`
 * (and a backslash as `\\`). The curriculum's policy prompt writes its fields the same way.
 */
export function oneLine(text: string): string {
  return text.replace(/\\/g, '\\\\').replace(/\r?\n/g, '\\n');
}

/** The text `oneLine` wrote: `\n` is a newline again and `\\` a backslash (what a model writes back). */
export function fromOneLine(line: string): string {
  return line.replace(/\\(\\|n)/g, (_match, escaped: string) => (escaped === 'n' ? '\n' : '\\'));
}

function renderV1(domain: Domain, history: readonly Transition[], action: Action): string {
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

function renderV2(input: PromptInput): string {
  const lines = [`@${input.domain}`];
  for (const neighbor of input.neighbors.slice(0, PROMPT_NEIGHBORS)) {
    lines.push(
      `N: ${cutMarked(oneLine(actionText(neighbor.action)), PROMPT_LIMITS.neighborActionBytes)}`,
    );
    lines.push(
      `R: ${cutMarked(oneLine(neighbor.observation), PROMPT_LIMITS.neighborObservationBytes)}`,
    );
  }
  lines.push(`A: ${truncateUtf8(oneLine(actionText(input.action)), PROMPT_LIMITS.actionBytes)}`);
  return `${lines.join('\n')}\nO: `;
}

/**
 * The prompt the model continues with the observation. `renderPrompt(input)` renders version 2;
 * `renderPrompt(input, 1)` and the older three-argument call `renderPrompt(domain, history, action)`
 * render version 1, for model folders whose config says `promptFormatVersion: 1`.
 */
export function renderPrompt(input: PromptInput, version?: PromptFormatVersion): string;
export function renderPrompt(
  domain: Domain,
  history: readonly Transition[],
  action: Action,
): string;
export function renderPrompt(
  first: PromptInput | Domain,
  second?: PromptFormatVersion | readonly Transition[],
  third?: Action,
): string {
  if (typeof first === 'string') {
    if (third === undefined || !Array.isArray(second)) {
      throw new TypeError('renderPrompt(domain, history, action) needs all three arguments');
    }
    return renderV1(first, second, third);
  }
  return second === 1 ? renderV1(first.domain, first.history, first.action) : renderV2(first);
}

/** `terrarium.promptFormatVersion` of a parsed config.json; a folder without it predates version 2. */
export function promptFormatOf(config: unknown): PromptFormatVersion {
  if (typeof config !== 'object' || config === null) return 1;
  const terrarium: unknown = Reflect.get(config, 'terrarium');
  if (typeof terrarium !== 'object' || terrarium === null) return 1;
  return Reflect.get(terrarium, 'promptFormatVersion') === 2 ? 2 : 1;
}

export interface PromptNeighborOptions {
  /** Default PROMPT_NEIGHBORS. */
  k?: number;
  /** Leave this recorded trajectory out (the one being simulated), as retrieval does. */
  excludeTrajectory?: string;
}

/**
 * The recorded transitions a v2 prompt shows for this step: the nearest ones of the corpus as the
 * retrieval simulator ranks them (same tool first, then the arguments, then the text), best first.
 * The one function training, evaluation, the server and the browser use, so all see the same
 * neighbors for the same corpus.
 */
export function promptNeighbors(
  index: RetrievalIndex,
  context: SimContext,
  history: readonly Transition[],
  action: Action,
  options: PromptNeighborOptions = {},
): PromptNeighbor[] {
  const found = index.search(
    context,
    history,
    action,
    options.k ?? PROMPT_NEIGHBORS,
    options.excludeTrajectory === undefined ? {} : { excludeTrajectory: options.excludeTrajectory },
  );
  return found.map((neighbor) => ({
    action: neighbor.action,
    observation: neighbor.observation.content,
  }));
}
