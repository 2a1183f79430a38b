import { readdir, readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import {
  JUDGE_SYSTEM_PROMPT_FILE,
  JUDGE_USER_TEMPLATE_FILE,
  SYSTEM_PROMPT_FILE,
  type PromptFolder,
} from '@terrarium/worlds';

async function readIfFile(file: string): Promise<string | null> {
  try {
    if (!(await stat(file)).isFile()) return null;
  } catch {
    return null;
  }
  return readFile(file, 'utf8');
}

/**
 * Reads a folder laid out like the official `prompts/`: one sub-folder per domain (`mcp`,
 * `terminal`…) with `system_prompt.txt` and `judge_system_prompt.txt`, and optionally a
 * `judge_user_prompt.txt` template at the top. Texts are kept byte for byte.
 */
export async function readPromptFolder(dir: string): Promise<PromptFolder> {
  const entries = await readdir(dir, { withFileTypes: true });
  const folder: PromptFolder = {
    systemPrompts: {},
    judgeSystemPrompts: {},
    judgeUserTemplate: await readIfFile(path.join(dir, JUDGE_USER_TEMPLATE_FILE)),
  };
  for (const entry of entries.toSorted((a, b) => (a.name < b.name ? -1 : 1))) {
    if (!entry.isDirectory()) continue;
    const system = await readIfFile(path.join(dir, entry.name, SYSTEM_PROMPT_FILE));
    const judge = await readIfFile(path.join(dir, entry.name, JUDGE_SYSTEM_PROMPT_FILE));
    if (system !== null) folder.systemPrompts[entry.name] = system;
    if (judge !== null) folder.judgeSystemPrompts[entry.name] = judge;
  }
  if (
    Object.keys(folder.systemPrompts).length === 0 &&
    Object.keys(folder.judgeSystemPrompts).length === 0
  ) {
    throw new Error(
      `${dir}: no DOMAIN/${SYSTEM_PROMPT_FILE} or DOMAIN/${JUDGE_SYSTEM_PROMPT_FILE} (expected the layout of the official prompts/ folder)`,
    );
  }
  return folder;
}
