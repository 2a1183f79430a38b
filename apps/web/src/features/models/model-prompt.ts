import {
  promptFormatOf,
  renderPrompt,
  type PromptFormatVersion,
  type PromptInput,
} from '@terrarium/inference';

/** The prompt formats a model folder may declare (`terrarium.promptFormatVersion` in config.json). */
export type PromptFormat = PromptFormatVersion;

/** `terrarium.promptFormatVersion` of a parsed config.json; a folder without it is version 1. */
export function promptFormatOfConfig(config: unknown): PromptFormat {
  return promptFormatOf(config);
}

/**
 * The prompt the model was trained on, rendered by packages/inference as the server renders it:
 * version 1 shows the last transitions of the history, version 2 the retrieved neighbors.
 */
export function browserPrompt(format: PromptFormat, input: PromptInput): string {
  return renderPrompt(input, format);
}
