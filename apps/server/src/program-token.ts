import { randomBytes } from 'node:crypto';
import { chmod, mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';

export const TOKEN_FILE = 'token';
export const TOKEN_ENV = 'TERRARIUM_TOKEN';

/** A token under this length is refused: it could be guessed. */
const MIN_TOKEN_LENGTH = 16;
const MIN_DISTINCT_CHARACTERS = 5;

export class TokenError extends Error {
  override name = 'TokenError';
}

export function tokenFromEnv(env: NodeJS.ProcessEnv): string | undefined {
  const token = env[TOKEN_ENV]?.trim();
  if (token === undefined || token === '') return undefined;
  if (token.length < MIN_TOKEN_LENGTH || /\s/.test(token)) {
    throw new TokenError(`${TOKEN_ENV} must be at least ${MIN_TOKEN_LENGTH} characters, no spaces`);
  }
  // Catches the placeholder kind (`aaaa…`, `abab…`), not every weak secret: none of two million
  // draws of 16 random hex digits had fewer than this many distinct ones.
  if (new Set(token).size < MIN_DISTINCT_CHARACTERS) {
    throw new TokenError(
      `${TOKEN_ENV} repeats too few characters to be a secret: use a random one (openssl rand -hex 32)`,
    );
  }
  if (isRun(token)) {
    throw new TokenError(
      `${TOKEN_ENV} runs through the alphabet or the digits: use a random one (openssl rand -hex 32)`,
    );
  }
  return token;
}

/**
 * `abcdefghijklmnop`, `0123456789012345`: three in four neighbouring characters one apart (or
 * equal). A random hex token of 16 characters has such a run once in two million draws (a
 * binomial tail: 12 of 15 pairs, each one apart with probability 3/16); a longer one, never.
 */
function isRun(token: string): boolean {
  let steps = 0;
  for (let at = 1; at < token.length; at += 1) {
    if (Math.abs(token.charCodeAt(at) - token.charCodeAt(at - 1)) <= 1) steps += 1;
  }
  return steps >= 0.75 * (token.length - 1);
}

/** The token file of a data folder, or null when there is none yet. */
export async function readTokenFile(dataDir: string): Promise<string | null> {
  try {
    const token = (await readFile(path.join(dataDir, TOKEN_FILE), 'utf8')).trim();
    return token === '' ? null : token;
  } catch (error) {
    if (error instanceof Error && 'code' in error && error.code === 'ENOENT') return null;
    throw error;
  }
}

/**
 * `TERRARIUM_TOKEN` when set; otherwise the data folder's token file, created (mode 0600, only
 * this user reads it) on first start. The CLI reads the same file to talk to the server.
 */
export async function ensureProgramToken(dataDir: string, env: NodeJS.ProcessEnv): Promise<string> {
  const configured = tokenFromEnv(env);
  if (configured !== undefined) return configured;
  const existing = await readTokenFile(dataDir);
  if (existing !== null) return existing;
  // This user's alone, like the store the folder will hold (see acquireDataDir).
  await mkdir(dataDir, { recursive: true, mode: 0o700 });
  const token = randomBytes(32).toString('base64url');
  const file = path.join(dataDir, TOKEN_FILE);
  // `wx`: two servers starting at once never overwrite each other's token.
  try {
    await writeFile(file, `${token}\n`, { mode: 0o600, flag: 'wx' });
  } catch (error) {
    if (error instanceof Error && 'code' in error && error.code === 'EEXIST') {
      const raced = await readTokenFile(dataDir);
      if (raced !== null) return raced;
    }
    throw error;
  }
  await chmod(file, 0o600);
  return token;
}
