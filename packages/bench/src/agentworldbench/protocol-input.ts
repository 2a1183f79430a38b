import type { BenchItem } from '@terrarium/schema';
import {
  actionPrompt,
  actionText,
  observationResponse,
  promptFolderKey,
  type PromptFolder,
  type SimContext,
  type Transition,
} from '@terrarium/worlds';
import { isImportedItem, simulatorSystemPrompt } from './records';

function command(text: string): Transition['action'] {
  return { type: 'command', command: text, interpreter: null };
}

/**
 * What a world model is sent for an item under the official protocol, as (context, history,
 * action) whose texts are the row's: the system prompt is the row's `system_str` for an imported
 * item, else the domain's `system_prompt.txt` from the folder (else Terrarium's template); turns
 * are the row's prompts and responses, with the official markers for built items. `history` is the
 * one to show (the item's, or a closed loop's predictions in its place).
 */
export function protocolInput(
  item: BenchItem,
  history: readonly Transition[],
  prompts: PromptFolder | null,
): { context: SimContext; history: Transition[]; action: Transition['action'] } {
  const imported = isImportedItem(item);
  const system = imported
    ? item.context.systemPrompt
    : (prompts?.systemPrompts[promptFolderKey(item.task, item.domain)] ??
      simulatorSystemPrompt(item));
  const promptOf = (action: Transition['action'], turn: number) =>
    imported ? actionText(action) : actionPrompt(turn + 1, actionText(action));
  const responseOf = (content: string) => (imported ? content : observationResponse(content));
  return {
    context: { domain: item.domain, task: null, systemPrompt: system, tools: [] },
    history: history.map((turn, i) => ({
      action: command(promptOf(turn.action, i)),
      observation: { ...turn.observation, content: responseOf(turn.observation.content) },
    })),
    action: command(promptOf(item.action, history.length)),
  };
}
