import { mkdir, open, readFile, rm, writeFile, rename } from 'node:fs/promises';
import { hostname } from 'node:os';
import { join, resolve } from 'node:path';

const LOCK_FILE = 'terrarium.lock';
const SERVER_INFO_FILE = 'server.json';

/** `--data-dir` flag, else `TERRARIUM_DATA_DIR`, else `./.terrarium`; always absolute. */
export function resolveDataDir(flag?: string, env: NodeJS.ProcessEnv = process.env): string {
  const chosen = flag?.trim() || env['TERRARIUM_DATA_DIR']?.trim() || '.terrarium';
  return resolve(chosen);
}

export class DataDirBusyError extends Error {
  override readonly name = 'DataDirBusyError';
  constructor(
    readonly dataDir: string,
    readonly pid: number,
  ) {
    super(
      `data folder ${dataDir} is in use by another Terrarium process (pid ${pid}); ` +
        `stop it, or talk to its server, or use another --data-dir`,
    );
  }
}

export interface DataDirLock {
  readonly dataDir: string;
  release(): Promise<void>;
}

/** True while a process with this pid exists (EPERM: it exists but belongs to another user). */
export function isProcessAlive(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return error instanceof Error && 'code' in error && error.code === 'EPERM';
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function parseJson(text: string): unknown {
  try {
    const parsed: unknown = JSON.parse(text);
    return parsed;
  } catch {
    return null;
  }
}

async function readTextOrNull(path: string): Promise<string | null> {
  try {
    return await readFile(path, 'utf8');
  } catch (error) {
    if (error instanceof Error && 'code' in error && error.code === 'ENOENT') return null;
    throw error;
  }
}

function lockPid(text: string): number | null {
  const parsed = parseJson(text);
  if (isRecord(parsed) && typeof parsed['pid'] === 'number') return parsed['pid'];
  return null;
}

/**
 * Creates the data folder readable by this user alone. An existing folder keeps its mode: it may be
 * shared on purpose (a group folder, or /tmp, whose mode must never change); the store inside it
 * is fenced on its own (its `pglite` folder is made 0700 when opened).
 */
async function makePrivateFolder(dataDir: string): Promise<void> {
  await mkdir(dataDir, { recursive: true, mode: 0o700 });
}

/**
 * Takes the folder for this process: creates it if needed, then creates `terrarium.lock` with
 * O_EXCL ('wx') holding our pid. A lock left by a dead process (kill -9, power loss) is taken over;
 * one held by a live process, this one included, is a `DataDirBusyError`.
 */
export async function acquireDataDir(dir: string): Promise<DataDirLock> {
  const dataDir = resolve(dir);
  await makePrivateFolder(dataDir);
  const lockPath = join(dataDir, LOCK_FILE);
  const content = JSON.stringify({
    pid: process.pid,
    host: hostname(),
    since: new Date().toISOString(),
  });
  // A few rounds: between our failed create and our read, the holder may release or another
  // process may take over the stale lock first.
  for (let attempt = 0; attempt < 5; attempt++) {
    try {
      const handle = await open(lockPath, 'wx');
      await handle.writeFile(content);
      await handle.close();
      return {
        dataDir,
        async release() {
          // Only remove the lock if it is still ours.
          const current = await readTextOrNull(lockPath);
          if (current === content) await rm(lockPath, { force: true });
        },
      };
    } catch (error) {
      if (!(error instanceof Error && 'code' in error && error.code === 'EEXIST')) throw error;
    }
    const existing = await readTextOrNull(lockPath);
    if (existing === null) continue;
    const pid = lockPid(existing);
    // An empty or unreadable lock is a holder that is still writing it; give it a moment.
    if (pid === null) {
      await new Promise((done) => setTimeout(done, 50));
      const again = await readTextOrNull(lockPath);
      if (again !== existing) continue;
    } else if (isProcessAlive(pid)) {
      throw new DataDirBusyError(dataDir, pid);
    }
    // Stale: move it aside atomically, and only drop it if it is still the stale one we judged.
    const aside = `${lockPath}.stale-${process.pid}`;
    try {
      await rename(lockPath, aside);
    } catch (error) {
      if (error instanceof Error && 'code' in error && error.code === 'ENOENT') continue;
      throw error;
    }
    const moved = await readTextOrNull(aside);
    if (moved !== existing && moved !== null) {
      // Another process replaced the stale lock between our read and the rename: put it back.
      await rename(aside, lockPath);
      const movedPid = lockPid(moved);
      if (movedPid !== null && isProcessAlive(movedPid))
        throw new DataDirBusyError(dataDir, movedPid);
      continue;
    }
    await rm(aside, { force: true });
  }
  throw new Error(`could not take the lock ${lockPath}: it keeps changing hands`);
}

export interface ServerInfo {
  url: string;
  pid: number;
}

/** Written by `serve` so that other commands talk to it instead of opening the folder again. */
export async function writeServerInfo(dir: string, info: ServerInfo): Promise<void> {
  const dataDir = resolve(dir);
  await mkdir(dataDir, { recursive: true });
  const path = join(dataDir, SERVER_INFO_FILE);
  // Write then rename, so a reader never sees half a file.
  const temporary = `${path}.${process.pid}.tmp`;
  await writeFile(temporary, JSON.stringify({ url: info.url, pid: info.pid }));
  await rename(temporary, path);
}

/** The running server of this folder, or null when there is none or its process has died. */
export async function readServerInfo(dir: string): Promise<ServerInfo | null> {
  const text = await readTextOrNull(join(resolve(dir), SERVER_INFO_FILE));
  if (text === null) return null;
  const parsed = parseJson(text);
  if (!isRecord(parsed)) return null;
  const { url, pid } = parsed;
  if (typeof url !== 'string' || typeof pid !== 'number') return null;
  return isProcessAlive(pid) ? { url, pid } : null;
}

export async function removeServerInfo(dir: string): Promise<void> {
  await rm(join(resolve(dir), SERVER_INFO_FILE), { force: true });
}
