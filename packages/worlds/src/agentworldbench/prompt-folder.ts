import { z } from 'zod';

/** The seven domains of the official release, each a folder of the official `prompts/`. */
export const AGENTWORLDBENCH_DOMAINS = [
  'mcp',
  'search',
  'terminal',
  'swe',
  'android',
  'web',
  'os',
] as const;

export const SYSTEM_PROMPT_FILE = 'system_prompt.txt';
export const JUDGE_SYSTEM_PROMPT_FILE = 'judge_system_prompt.txt';
/**
 * Not part of the official folder (the official judge user message lives in its code): a template
 * with `{context}`, `{world_model_input}`, `{predicted_observation}` and `{ground_truth}` fields,
 * `{{`/`}}` for literal braces, as Python's `str.format` reads it.
 */
export const JUDGE_USER_TEMPLATE_FILE = 'judge_user_prompt.txt';

/**
 * A folder laid out like the official `prompts/`: per domain the world model's system prompt and
 * the judge's system prompt, plus an optional judge user template at the top. Read by the caller
 * (no I/O here): keys are the domain folder names.
 */
export const PromptFolder = z.object({
  systemPrompts: z.record(z.string(), z.string()),
  judgeSystemPrompts: z.record(z.string(), z.string()),
  judgeUserTemplate: z.string().nullable(),
});
export type PromptFolder = z.infer<typeof PromptFolder>;

/** Terrarium's domains in the official folder names (function calling is `mcp` there). */
const FOLDER_OF_DOMAIN: Record<string, string> = {
  tool: 'mcp',
  search: 'search',
  terminal: 'terminal',
  swe: 'swe',
  android: 'android',
  web: 'web',
  os: 'os',
};

/**
 * The folder of a task: the part after the last `/` when it names an official domain (as the
 * official script takes it), else the folder of the Terrarium domain.
 */
export function promptFolderKey(task: string, domain: string): string {
  const subtask = task.split('/').at(-1) ?? task;
  if (AGENTWORLDBENCH_DOMAINS.some((name) => name === subtask)) return subtask;
  return FOLDER_OF_DOMAIN[domain] ?? subtask;
}

/** Fills `{name}` fields of a Python `str.format` template; `{{` and `}}` are literal braces. */
export function formatPythonTemplate(template: string, values: Record<string, string>): string {
  return template.replace(/\{\{|\}\}|\{([A-Za-z_][A-Za-z0-9_]*)\}/g, (match, name?: string) => {
    if (match === '{{') return '{';
    if (match === '}}') return '}';
    if (name === undefined || !(name in values)) {
      throw new Error(`judge user template: unknown field {${name ?? ''}}`);
    }
    return values[name] ?? '';
  });
}
