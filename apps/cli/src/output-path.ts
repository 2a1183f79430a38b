import { randomBytes } from 'node:crypto';
import { chmod, mkdir, open, rename, rm, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileSystemReason, isErrnoException } from '@terrarium/api';
import { CliError } from './cli-error';

/** What a command writes to its output file, a piece at a time. */
export interface OutputStream {
  write(text: string): Promise<void>;
}

/** A file of a folder output (a Harbor task's), its path relative to the folder. */
export interface OutputFolderFile {
  path: string;
  content: string;
  executable?: boolean;
}

/** The one-line failure for a file-system error at `target`; anything else passes unchanged. */
function cannotWrite(target: string, error: unknown): unknown {
  const reason = fileSystemReason(error);
  return reason === null ? error : new CliError(`cannot write ${target}: ${reason}`);
}

/** `work`'s result, with a file-system failure said as `cannot write TARGET: reason`. */
async function writingTo<T>(target: string, work: Promise<T>): Promise<T> {
  try {
    return await work;
  } catch (error) {
    throw cannotWrite(target, error);
  }
}

async function existingKind(target: string): Promise<'file' | 'folder' | 'none'> {
  const info = await stat(target).catch((error: unknown) => {
    if (isErrnoException(error) && (error.code === 'ENOENT' || error.code === 'ENOTDIR'))
      return null;
    throw cannotWrite(target, error);
  });
  if (info === null) return 'none';
  return info.isDirectory() ? 'folder' : 'file';
}

// Writes are gathered to about this many characters: a long export is not a system call per line.
const FLUSH_LENGTH = 1 << 16;

/**
 * Writes the file `file` with what `produce` writes, and returns what `produce` returns. Missing
 * parent folders are created. The text goes to a temporary file beside `file`, renamed over it only
 * once `produce` has finished, so a failure (the write's, or `produce`'s such as an unknown bench)
 * leaves no partial file that could pass for a whole one. The place is checked before `produce`
 * runs, so a wrong `--out` is said before a long export rather than after it. A file-system
 * failure becomes the one-line `cannot write FILE: reason`.
 */
export async function writeOutputFile<T>(
  file: string,
  produce: (out: OutputStream) => Promise<T>,
): Promise<T> {
  if ((await existingKind(file)) === 'folder')
    throw new CliError(`cannot write ${file}: it is a folder, not a file`);
  // `results/` names a folder even while none exists; writing a file by its name would surprise.
  if (file.endsWith('/') || file.endsWith(path.sep))
    throw new CliError(`cannot write ${file}: it names a folder (ends in /), not a file`);
  const folder = path.dirname(path.resolve(file));
  await writingTo(file, mkdir(folder, { recursive: true }));
  // Beside the target, so that the rename stays on one file system and is atomic.
  const temporary = path.join(
    folder,
    `.${path.basename(file)}.${randomBytes(4).toString('hex')}.partial`,
  );
  const handle = await writingTo(file, open(temporary, 'wx'));
  let pending: string[] = [];
  let pendingLength = 0;
  const flush = async () => {
    if (pending.length === 0) return;
    const text = pending.join('');
    pending = [];
    pendingLength = 0;
    await writingTo(file, handle.writeFile(text, 'utf8'));
  };
  let closed = false;
  try {
    const result = await produce({
      async write(text) {
        pending.push(text);
        pendingLength += text.length;
        if (pendingLength >= FLUSH_LENGTH) await flush();
      },
    });
    await flush();
    closed = true;
    await writingTo(file, handle.close());
    await writingTo(file, rename(temporary, file));
    return result;
  } catch (error) {
    // The failure already on its way is the one to report, not a second one from closing.
    if (!closed) await handle.close().catch(() => undefined);
    await rm(temporary, { force: true });
    throw error;
  }
}

/**
 * Writes `files` under the folder `folder`, creating it and its parents. Each top-level entry (a
 * Harbor task's folder) is written whole in a hidden folder inside `folder` first and moved into
 * place only once every file is written, replacing an entry of that name: a failure partway (a
 * full disk) leaves `folder` as it was, and a task exported again never mixes in files of its
 * older export. A file where the folder should be is refused before anything is written; any
 * file-system failure becomes the one-line `cannot write PATH: reason`.
 */
export async function writeOutputFolder(
  folder: string,
  files: readonly OutputFolderFile[],
): Promise<void> {
  const existed = await existingKind(folder);
  if (existed === 'file') throw new CliError(`cannot write ${folder}: it is a file, not a folder`);
  await writingTo(folder, mkdir(folder, { recursive: true }));
  // Inside the folder, so the moves stay on one file system and each is a rename.
  const staging = path.join(folder, `.terrarium-export.${randomBytes(4).toString('hex')}.partial`);
  const previous = `${staging}-previous`;
  try {
    await writingTo(folder, mkdir(staging));
    for (const file of files) {
      const target = path.join(folder, file.path);
      const staged = path.join(staging, file.path);
      await writingTo(target, mkdir(path.dirname(staged), { recursive: true }));
      await writingTo(target, writeFile(staged, file.content));
      if (file.executable === true) await writingTo(target, chmod(staged, 0o755));
    }
    // An older entry of the same name moves aside first and back if the new one cannot move in,
    // so that a task is always in place, old or new.
    await writingTo(folder, mkdir(previous));
    for (const entry of new Set(files.map((file) => file.path.split('/')[0] ?? file.path))) {
      const target = path.join(folder, entry);
      const aside = path.join(previous, entry);
      const hadOne = (await existingKind(target)) !== 'none';
      if (hadOne) await writingTo(target, rename(target, aside));
      try {
        await writingTo(target, rename(path.join(staging, entry), target));
      } catch (error) {
        if (hadOne) await rename(aside, target);
        throw error;
      }
    }
  } catch (error) {
    await rm(staging, { recursive: true, force: true });
    await rm(previous, { recursive: true, force: true });
    if (existed === 'none') await rm(folder, { recursive: true, force: true });
    throw error;
  }
  await writingTo(folder, rm(staging, { recursive: true, force: true }));
  await writingTo(folder, rm(previous, { recursive: true, force: true }));
}
