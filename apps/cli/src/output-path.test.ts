import { mkdir, mkdtemp, readdir, readFile, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { CliError } from './cli-error';
import { writeOutputFile, writeOutputFolder } from './output-path';

let scratch: string;

/** The user-facing failure `work` ends with: a CliError, whose message is printed as one line. */
async function cliFailureOf(work: Promise<unknown>): Promise<string> {
  try {
    await work;
  } catch (error) {
    if (error instanceof CliError) return error.message;
    throw error;
  }
  throw new Error('expected a CliError, but it succeeded');
}
beforeEach(async () => {
  scratch = await mkdtemp(path.join(tmpdir(), 'output-path-'));
});

describe('writeOutputFile', () => {
  it('creates missing parent folders and leaves the file alone, no temporary beside it', async () => {
    const file = path.join(scratch, 'a', 'b', 'x.jsonl');
    const written = await writeOutputFile(file, async (out) => {
      await out.write('one\n');
      await out.write('two\n');
      return 2;
    });
    expect(written).toBe(2);
    expect(await readFile(file, 'utf8')).toBe('one\ntwo\n');
    expect(await readdir(path.dirname(file))).toEqual(['x.jsonl']);
  });

  it('writes more than one flush of text whole and in order', async () => {
    const file = path.join(scratch, 'big.jsonl');
    const lines = Array.from({ length: 20_000 }, (_, index) => `line ${index}\n`);
    await writeOutputFile(file, async (out) => {
      for (const line of lines) await out.write(line);
    });
    expect(await readFile(file, 'utf8')).toBe(lines.join(''));
  });

  it('keeps the old file and leaves no partial one when producing fails', async () => {
    const file = path.join(scratch, 'x.jsonl');
    await writeFile(file, 'the previous export\n');
    const failure = new Error('no bench "nope"');
    await expect(
      writeOutputFile(file, async (out) => {
        await out.write('half\n');
        throw failure;
      }),
    ).rejects.toBe(failure);
    expect(await readFile(file, 'utf8')).toBe('the previous export\n');
    expect(await readdir(scratch)).toEqual(['x.jsonl']);
  });

  it('refuses a folder before producing anything', async () => {
    const folder = path.join(scratch, 'results');
    await mkdir(folder);
    let produced = false;
    const writing = writeOutputFile(folder, async () => {
      produced = true;
    });
    expect(await cliFailureOf(writing)).toBe(`cannot write ${folder}: it is a folder, not a file`);
    expect(produced).toBe(false);
    expect(await cliFailureOf(writeOutputFile(`${folder}-new/`, async () => {}))).toBe(
      `cannot write ${folder}-new/: it names a folder (ends in /), not a file`,
    );
    expect(await readdir(scratch)).toEqual(['results']);
  });

  it('says in words that a file stands where a parent folder should be', async () => {
    await writeFile(path.join(scratch, 'taken'), '');
    const file = path.join(scratch, 'taken', 'x.jsonl');
    expect(await cliFailureOf(writeOutputFile(file, async () => {}))).toBe(
      `cannot write ${file}: a file is where a folder is needed`,
    );
  });
});

describe('writeOutputFolder', () => {
  it('writes each file under the folder, creating it and its parents', async () => {
    const folder = path.join(scratch, 'tasks', 'harbor');
    await writeOutputFolder(folder, [
      { path: 'one/task.toml', content: 'id = "one"\n' },
      { path: 'one/solution/solve.sh', content: '#!/bin/sh\n', executable: true },
    ]);
    expect(await readFile(path.join(folder, 'one/task.toml'), 'utf8')).toBe('id = "one"\n');
    const script = await stat(path.join(folder, 'one/solution/solve.sh'));
    expect(script.mode & 0o777).toBe(0o755);
  });

  it('leaves the folder as it was when a file fails partway, and replaces a task exported again', async () => {
    const folder = path.join(scratch, 'harbor');
    await writeOutputFolder(folder, [
      { path: 'kept/task.toml', content: 'id = "kept"\n' },
      { path: 'one/task.toml', content: 'id = "one"\n' },
      { path: 'one/tests/expected/3', content: 'stale\n' },
    ]);
    // `two/task.toml` is written as a file, then needed as a folder: the write fails at it.
    const failure = await cliFailureOf(
      writeOutputFolder(folder, [
        { path: 'one/task.toml', content: 'id = "one", again\n' },
        { path: 'two/task.toml', content: 'id = "two"\n' },
        { path: 'two/task.toml/x', content: '' },
      ]),
    );
    expect(failure).toBe(
      `cannot write ${path.join(folder, 'two/task.toml/x')}: a file is where a folder is needed`,
    );
    expect((await readdir(folder)).toSorted()).toEqual(['kept', 'one']);
    expect(await readFile(path.join(folder, 'one/task.toml'), 'utf8')).toBe('id = "one"\n');
    // Exported again, `one` is the new export alone: its old expected file does not linger.
    await writeOutputFolder(folder, [{ path: 'one/task.toml', content: 'id = "one", again\n' }]);
    expect((await readdir(folder)).toSorted()).toEqual(['kept', 'one']);
    expect(await readdir(path.join(folder, 'one'))).toEqual(['task.toml']);
    expect(await readFile(path.join(folder, 'kept/task.toml'), 'utf8')).toBe('id = "kept"\n');
  });

  it('removes a folder it made when the export fails', async () => {
    const folder = path.join(scratch, 'new-harbor');
    await cliFailureOf(
      writeOutputFolder(folder, [
        { path: 'a/b', content: '' },
        { path: 'a/b/c', content: '' },
      ]),
    );
    expect(await readdir(scratch)).toEqual([]);
  });

  it('refuses a file where the folder should be, writing nothing', async () => {
    const file = path.join(scratch, 'tasks.jsonl');
    await writeFile(file, 'kept\n');
    expect(
      await cliFailureOf(writeOutputFolder(file, [{ path: 'one/task.toml', content: '' }])),
    ).toBe(`cannot write ${file}: it is a file, not a folder`);
    expect(await readFile(file, 'utf8')).toBe('kept\n');
  });
});
