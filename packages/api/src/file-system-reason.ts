// In words: the user acts on "it is a folder", not on "EISDIR: illegal operation on a directory".
const REASONS: Record<string, string> = {
  EISDIR: 'it is a folder, not a file',
  ENOTDIR: 'part of the path is a file, not a folder',
  EEXIST: 'a file is where a folder is needed',
  ENOENT: 'a folder on the path is missing',
  EACCES: 'permission denied',
  EPERM: 'permission denied',
  EROFS: 'the file system is read-only',
  ENOSPC: 'no space left on the device',
  EDQUOT: 'the disk quota is used up',
  ENAMETOOLONG: 'the name is too long',
};

/** An error from Node's file-system calls, with its code (ENOENT, ENOSPC, …). */
export function isErrnoException(error: unknown): error is NodeJS.ErrnoException {
  return error instanceof Error && 'code' in error && typeof error.code === 'string';
}

/** A file-system error in words ("no space left on the device"), or null for any other error. */
export function fileSystemReason(error: unknown): string | null {
  if (!isErrnoException(error) || error.code === undefined) return null;
  // Node's message names the call and repeats the path ("EIO: i/o error, write"): keep its gist.
  return REASONS[error.code] ?? error.message.split(',')[0] ?? error.code;
}
