import type { Action, Domain, JsonValue } from '@terrarium/schema';
import {
  actionText,
  type RetrievalIndex,
  type SearchOptions,
  type SimContext,
  type Transition,
} from '@terrarium/worlds';
import type { Grammar } from './decoder';
import type { TextTokenizer } from './tokenizer';

/**
 * The prompt of Terrarium's bundled world model, built as token ids. Training examples are built by
 * this very module (models/export-examples.ts writes the ids), so training and inference cannot
 * drift apart; models/train.py never tokenizes or renders anything.
 *
 * Version 3 (the shipped model): the earlier transition of this trajectory that the action refers to,
 * the nearest recorded transitions of other runs, then the action; the model answers with the
 * observation and EOS. It learns to copy what carries over (the structure and the unchanged values
 * of a neighbor's answer, the records the trajectory has already shown) and to change what the
 * action's arguments change.
 *
 *   @<domain>
 *   <|P|> earlier action  <|H|> its observation        the earlier transition (when there is one)
 *   <|N|> neighbor action <|R|> neighbor observation   ┐ up to PROMPT_NEIGHBORS recorded
 *   …                                                  ┘ transitions, best first
 *   <|A|> action <|O|>                                 the model continues with the observation
 *
 * Fields are verbatim (no escaping): the markers are special tokens of the model's tokenizer, so no
 * text can imitate them. A field longer than its budget is cut (on a character boundary, to at most
 * its budget of tokens) and followed by `<|cut|>`; the prompt's text encodes back to its ids. Budgets are in tokens (PROMPT_BUDGET); the whole prompt stays within `prompt` tokens,
 * which leaves the rest of the model's context for the observation.
 */
export const PROMPT_FORMAT_VERSION = 3;

export type PromptFormatVersion = typeof PROMPT_FORMAT_VERSION;

/** How many recorded transitions a prompt carries at most. */
export const PROMPT_NEIGHBORS = 2;

/** The field markers, special tokens of the bundled model's tokenizer.json. */
export const PROMPT_MARKERS = Object.freeze({
  earlierAction: '<|P|>',
  earlierObservation: '<|H|>',
  neighborAction: '<|N|>',
  neighborObservation: '<|R|>',
  action: '<|A|>',
  observation: '<|O|>',
  cut: '<|cut|>',
});

export type PromptMarker = (typeof PROMPT_MARKERS)[keyof typeof PROMPT_MARKERS];

/** Token budgets of the fields; `prompt` bounds the whole prompt. */
export const PROMPT_BUDGET = Object.freeze({
  earlierAction: 32,
  earlierObservation: 256,
  neighborAction: 48,
  /** The best neighbor's observation, whole for 9 in 10 tool answers: most answers are this one, edited. */
  neighborObservation: 768,
  /** Any further neighbor's observation: enough to show how it differs. */
  laterNeighborObservation: 128,
  action: 64,
  prompt: 1280,
});

/** A neighbor field shorter than this after the others are placed is left out, not shown as a stub. */
const MIN_NEIGHBOR_OBSERVATION = 24;

/** A recorded transition shown to the model: what was asked and what the environment answered. */
export interface PromptNeighbor {
  action: Action;
  observation: string;
}

export interface PromptInput {
  domain: Domain;
  /** The trajectory so far; the prompt shows the one transition `earlierTransition` picks. */
  history: readonly Transition[];
  action: Action;
  /** Best first; empty builds a prompt without retrieved context. */
  neighbors: readonly PromptNeighbor[];
}

/** A built prompt: the ids the model reads, and the same ids as text (markers written out). */
export interface Prompt {
  ids: number[];
  text: string;
}

/**
 * The values an action names: a tool call's argument values (strings and numbers, at any depth),
 * or a command's words after the program. Short ones (< 3 characters) say too little to match on.
 */
export function actionValues(action: Action): string[] {
  const values: string[] = [];
  const walk = (value: JsonValue | undefined): void => {
    if (value === null || value === undefined || typeof value === 'boolean') return;
    if (typeof value === 'string' || typeof value === 'number') {
      const text = String(value);
      if (text.length >= 3) values.push(text);
    } else if (Array.isArray(value)) {
      for (const item of value) walk(item);
    } else {
      for (const item of Object.values(value)) walk(item);
    }
  };
  switch (action.type) {
    case 'tool_call':
    case 'browser':
      walk(action.arguments);
      break;
    case 'command':
      values.push(
        ...action.command
          .split(/\s+/)
          .slice(1)
          .filter((word) => word.length >= 3),
      );
      break;
    case 'keystrokes':
      values.push(...action.keys.split(/\s+/).filter((word) => word.length >= 3));
      break;
    case 'message':
      break;
  }
  return values;
}

/**
 * The earlier transition the prompt shows: the one whose action or observation names the most of
 * this action's values (the user record that lists the order being fetched, the order being
 * changed), the latest among equals; the latest transition when none names any (a device's state
 * shows in its last answer).
 */
export function earlierTransition(
  history: readonly Transition[],
  action: Action,
): Transition | undefined {
  const values = actionValues(action);
  let best: Transition | undefined;
  let bestCount = 0;
  for (let i = history.length - 1; i >= 0; i--) {
    const earlier = history[i];
    if (earlier === undefined) continue;
    const text = `${actionText(earlier.action)}\n${earlier.observation.content}`;
    const count = values.filter((value) => text.includes(value)).length;
    if (count > bestCount) {
      best = earlier;
      bestCount = count;
    }
  }
  return best ?? history.at(-1);
}

/**
 * Builds the prompt as token ids. A tokenizer without the markers as special tokens (a model folder
 * of another kind) gets them as plain text, so the prompt still builds.
 */
export function buildPrompt(
  input: PromptInput,
  tokenizer: TextTokenizer,
  maxTokens: number = PROMPT_BUDGET.prompt,
): Prompt {
  const marker = (name: PromptMarker): number[] => {
    const id = tokenizer.specialTokenId(name);
    return id === undefined ? tokenizer.encode(name) : [id];
  };
  const field = (text: string, budget: number): number[] => {
    const ids = tokenizer.encode(text);
    if (ids.length <= budget) return ids;
    // Cut as text, then encoded again: every field is the encoding of a text, so the prompt's text
    // encodes back to the very same ids (the tokenizer splits at special tokens first). A cut
    // through a character leaves U+FFFD, which is dropped.
    let kept = tokenizer.describe(ids.slice(0, budget)).replace(/\uFFFD+$/, '');
    let cut = tokenizer.encode(kept);
    while (cut.length > budget) {
      kept = kept.slice(0, isLowSurrogate(kept.charCodeAt(kept.length - 1)) ? -2 : -1);
      cut = tokenizer.encode(kept);
    }
    return [...cut, ...marker(PROMPT_MARKERS.cut)];
  };

  const head = tokenizer.encode(`@${input.domain}\n`);
  const earlier = earlierTransition(input.history, input.action);
  const context =
    earlier === undefined
      ? []
      : [
          ...marker(PROMPT_MARKERS.earlierAction),
          ...field(actionText(earlier.action), PROMPT_BUDGET.earlierAction),
          ...marker(PROMPT_MARKERS.earlierObservation),
          ...field(earlier.observation.content, PROMPT_BUDGET.earlierObservation),
        ];
  const tail = [
    ...marker(PROMPT_MARKERS.action),
    ...field(actionText(input.action), PROMPT_BUDGET.action),
    ...marker(PROMPT_MARKERS.observation),
  ];

  const ids = [...head, ...context];
  for (const [rank, neighbor] of input.neighbors.slice(0, PROMPT_NEIGHBORS).entries()) {
    const asked = [
      ...marker(PROMPT_MARKERS.neighborAction),
      ...field(actionText(neighbor.action), PROMPT_BUDGET.neighborAction),
      ...marker(PROMPT_MARKERS.neighborObservation),
    ];
    // What is left once the action line is reserved, less one id for a possible cut marker.
    const room = maxTokens - ids.length - tail.length - asked.length - 1;
    const budget = Math.min(
      room,
      rank === 0 ? PROMPT_BUDGET.neighborObservation : PROMPT_BUDGET.laterNeighborObservation,
    );
    if (budget < MIN_NEIGHBOR_OBSERVATION) break;
    ids.push(...asked, ...field(neighbor.observation, budget));
  }
  ids.push(...tail);
  return { ids, text: tokenizer.describe(ids) };
}

/**
 * The grammar a prediction is held to: `json` when the best recorded answer shown is a JSON
 * object or array (the tool answers in JSON, so a prediction that is not JSON is never right).
 * Otherwise, for tool APIs, `json-if-opened`: free text, but an output that opens an object or
 * array must stay JSON, so one the budget cuts still parses. Other domains answer in text that may
 * well start with a bracket (SWE-agent's `[File: …]`), so there the model writes freely.
 */
export function observationGrammar(
  neighbors: readonly PromptNeighbor[],
  domain: Domain,
): Grammar | undefined {
  const fallback = domain === 'tool' ? 'json-if-opened' : undefined;
  const best = neighbors[0]?.observation.trim() ?? '';
  if (!best.startsWith('{') && !best.startsWith('[')) return fallback;
  try {
    JSON.parse(best);
    return 'json';
  } catch {
    return fallback;
  }
}

/**
 * `terrarium.promptFormatVersion` of a parsed config.json. Folders of other kinds declare none and
 * are prompted with the current format; a Terrarium folder of an older format is refused, since
 * this version no longer builds its prompts.
 */
export function promptFormatOf(config: unknown): PromptFormatVersion {
  const terrarium: unknown =
    typeof config === 'object' && config !== null ? Reflect.get(config, 'terrarium') : undefined;
  const version: unknown =
    typeof terrarium === 'object' && terrarium !== null
      ? Reflect.get(terrarium, 'promptFormatVersion')
      : undefined;
  if (version === undefined || version === PROMPT_FORMAT_VERSION) return PROMPT_FORMAT_VERSION;
  throw new Error(
    `the model was trained on prompt format ${String(version)}; this version of Terrarium builds format ${PROMPT_FORMAT_VERSION} (retrain it with models/train.py)`,
  );
}

/** What to leave out is retrieval's (the simulated trajectory and its task: `leaveOut`). */
export interface PromptNeighborOptions extends SearchOptions {
  /** Default PROMPT_NEIGHBORS. */
  k?: number;
}

/**
 * The recorded transitions a prompt shows for this step: the nearest ones of the corpus as the
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
  const found = index.search(context, history, action, options.k ?? PROMPT_NEIGHBORS, options);
  return found.map((neighbor) => ({
    action: neighbor.action,
    observation: neighbor.observation.content,
  }));
}

function isLowSurrogate(code: number): boolean {
  return code >= 0xdc00 && code <= 0xdfff;
}
