import { writeFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { uploadNotStored } from './import-route';

/** The error Node raises for `write`, caught so the test can classify it. */
async function failureOf(write: Promise<unknown>): Promise<unknown> {
  try {
    await write;
  } catch (error) {
    return error;
  }
  throw new Error('the write was expected to fail');
}

describe('uploadNotStored', () => {
  it('says a full disk is full, as 507, without the spool path', async () => {
    // /dev/full answers every write with ENOSPC: the same error a full spool disk gives.
    const error = await failureOf(writeFile('/dev/full', 'an upload'));
    expect(uploadNotStored(error)).toEqual({
      status: 507,
      message:
        'import failed: the server could not store the upload (no space left on the device); nothing was imported',
    });
  });

  it('names other file-system failures, as 500', async () => {
    const error = await failureOf(writeFile('/dev/null/upload', 'an upload'));
    expect(uploadNotStored(error)).toEqual({
      status: 500,
      message:
        'import failed: the server could not store the upload (part of the path is a file, not a folder); nothing was imported',
    });
  });

  it('keeps any other failure to the server log', () => {
    expect(uploadNotStored(new Error('relation "x" does not exist'))).toEqual({
      status: 500,
      message: 'import failed: internal error',
    });
  });
});
