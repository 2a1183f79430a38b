import { createHfTokenizer } from './hf-tokenizer';
import { byteTokenizer, type TextTokenizer } from './tokenizer';

/** Whether a parsed `config.json` says `"terrarium": {"tokenizer": "bytes"}` (Terrarium's own models). */
export function declaresByteTokenizer(config: unknown): boolean {
  const terrarium: unknown =
    typeof config === 'object' && config !== null ? Reflect.get(config, 'terrarium') : undefined;
  return (
    typeof terrarium === 'object' &&
    terrarium !== null &&
    Reflect.get(terrarium, 'tokenizer') === 'bytes'
  );
}

export interface ModelTokenizerFiles {
  /** Parsed `config.json`. */
  config: unknown;
  /** Parsed `tokenizer.json`; undefined when the folder has none. */
  tokenizerJson?: unknown;
  /** Parsed `tokenizer_config.json`; undefined when the folder has none. */
  tokenizerConfig?: unknown;
}

/**
 * The tokenizer of a model folder: the byte one when config.json declares it, else the folder's
 * own tokenizer.json (with tokenizer_config.json when present).
 */
export function modelTokenizer({
  config,
  tokenizerJson,
  tokenizerConfig,
}: ModelTokenizerFiles): TextTokenizer {
  if (declaresByteTokenizer(config)) return byteTokenizer;
  if (tokenizerJson === undefined) {
    throw new Error(
      'the model folder has no tokenizer.json, and its config.json does not declare "terrarium": {"tokenizer": "bytes"}',
    );
  }
  return createHfTokenizer(tokenizerJson, tokenizerConfig);
}
