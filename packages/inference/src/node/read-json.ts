import { readFile } from 'node:fs/promises';

export async function readJson(path: string): Promise<unknown> {
  return JSON.parse(await readFile(path, 'utf8'));
}

function isMissingFile(error: unknown): boolean {
  return error instanceof Error && Reflect.get(error, 'code') === 'ENOENT';
}

/** Parsed JSON, or undefined when the file does not exist. */
export async function readOptionalJson(path: string): Promise<unknown> {
  try {
    return await readJson(path);
  } catch (error) {
    if (isMissingFile(error)) return undefined;
    throw error;
  }
}
