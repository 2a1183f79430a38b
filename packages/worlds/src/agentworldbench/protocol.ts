import type { ChatMessage } from '../prompt/template';

/** Sampling of the official AgentWorldBench inference and judging. */
export const AGENTWORLDBENCH_SAMPLING = { temperature: 0.6, maxTokens: 32768 } as const;

/**
 * One AgentWorldBench row as the official script reads it: lists of action prompts and real
 * observations (possibly shorter than the trajectory), the action of the evaluated turn (may be
 * empty: then `prompts[turnIdx - 1]`) and the 1-based turn.
 */
export interface ProtocolRow {
  systemPrompt: string | null;
  prompts: readonly string[];
  responses: readonly string[];
  currentPrompt: string;
  /** 1-based, as in the file. */
  turnIdx: number;
}

/** The 0-based evaluated turn: `turn_idx - 1`, never below 0. */
export function evaluatedTurn(row: Pick<ProtocolRow, 'turnIdx'>): number {
  return Math.max(row.turnIdx - 1, 0);
}

/** The action the row evaluates: `current_prompt`, or the prompt of the evaluated turn when empty. */
export function currentAction(row: ProtocolRow): string {
  const turn = evaluatedTurn(row);
  if (row.currentPrompt !== '') return row.currentPrompt;
  return row.prompts[turn] ?? '';
}

/** How many earlier turns both lists hold: the history the protocol shows. */
export function historyLength(row: ProtocolRow): number {
  return Math.min(evaluatedTurn(row), row.prompts.length, row.responses.length);
}

/**
 * The world-model chat the official protocol sends for a row: the row's system prompt (left out
 * when empty), each earlier turn as user prompt / assistant response, then the current action.
 */
export function worldModelMessages(row: ProtocolRow): ChatMessage[] {
  const messages: ChatMessage[] = [];
  if (row.systemPrompt !== null && row.systemPrompt !== '') {
    messages.push({ role: 'system', content: row.systemPrompt });
  }
  for (let j = 0; j < historyLength(row); j++) {
    messages.push({ role: 'user', content: row.prompts[j] ?? '' });
    messages.push({ role: 'assistant', content: row.responses[j] ?? '' });
  }
  messages.push({ role: 'user', content: currentAction(row) });
  return messages;
}
