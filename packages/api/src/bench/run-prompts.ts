import { createHash } from 'node:crypto';
import type { PromptFiles, RunPrompts } from '@terrarium/schema';
import {
  JUDGE_SYSTEM_PROMPT_FILE,
  JUDGE_USER_TEMPLATE_FILE,
  SYSTEM_PROMPT_FILE,
  type PromptFolder,
} from '@terrarium/worlds';

/** A prompt folder as the files it was read from, by relative path (`mcp/system_prompt.txt`). */
export function promptFilesOf(folder: PromptFolder): PromptFiles {
  const files: PromptFiles = {};
  for (const [domain, text] of Object.entries(folder.systemPrompts)) {
    files[`${domain}/${SYSTEM_PROMPT_FILE}`] = text;
  }
  for (const [domain, text] of Object.entries(folder.judgeSystemPrompts)) {
    files[`${domain}/${JUDGE_SYSTEM_PROMPT_FILE}`] = text;
  }
  if (folder.judgeUserTemplate !== null) files[JUDGE_USER_TEMPLATE_FILE] = folder.judgeUserTemplate;
  return files;
}

/**
 * The folder the files spell; the inverse of `promptFilesOf`. A path of another shape means the
 * files did not come from a prompt folder: refused with the path, never guessed at.
 */
export function promptFolderOfFiles(files: PromptFiles): PromptFolder {
  const folder: PromptFolder = {
    systemPrompts: {},
    judgeSystemPrompts: {},
    judgeUserTemplate: null,
  };
  for (const [file, text] of Object.entries(files)) {
    if (file === JUDGE_USER_TEMPLATE_FILE) {
      folder.judgeUserTemplate = text;
      continue;
    }
    const match = /^([^/]+)\/([^/]+)$/.exec(file);
    const [, domain, name] = match ?? [];
    if (domain !== undefined && name === SYSTEM_PROMPT_FILE) folder.systemPrompts[domain] = text;
    else if (domain !== undefined && name === JUDGE_SYSTEM_PROMPT_FILE) {
      folder.judgeSystemPrompts[domain] = text;
    } else {
      throw new Error(
        `prompts: ${file} is not DOMAIN/${SYSTEM_PROMPT_FILE}, DOMAIN/${JUDGE_SYSTEM_PROMPT_FILE} or ${JUDGE_USER_TEMPLATE_FILE}`,
      );
    }
  }
  return folder;
}

/**
 * SHA-256 over each file's relative path, NUL, text, NUL, in path order: the same folder content
 * gives the same hash on every machine, whatever order the files were read in.
 */
export function promptFilesHash(files: PromptFiles): string {
  const hash = createHash('sha256');
  for (const file of Object.keys(files).toSorted()) {
    hash
      .update(file, 'utf8')
      .update('\u0000')
      .update(files[file] ?? '', 'utf8')
      .update('\u0000');
  }
  return hash.digest('hex');
}

/** What a bench run stores of its prompt folder: the hash and the texts. */
export function runPromptsOf(folder: PromptFolder): { hash: string; files: PromptFiles } {
  const files = promptFilesOf(folder);
  return { hash: promptFilesHash(files), files };
}

/** The summary a run shows: hash and sorted paths. */
export function runPromptsSummary(folder: PromptFolder): RunPrompts {
  const { hash, files } = runPromptsOf(folder);
  return { hash, files: Object.keys(files).toSorted() };
}
