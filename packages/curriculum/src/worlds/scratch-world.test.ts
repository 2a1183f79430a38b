import { describe, expect, it } from 'vitest';
import { toolsFor, TERMINAL_TOOLS } from './world-catalog';
import { createScratchWorld, SCRATCH_SHELL_HELP } from './scratch-world';

const NOTES = 'alpha\nbravo\ncharlie\n';
// The seed-0 distractor /data/file-0.txt is "alpha\nbravo\n" (12 bytes); notes.txt is 20 bytes.
const EXTRA = { '/data/notes.txt': NOTES };
const ONE_AT_A_TIME =
  'scratch: this shell runs one command at a time (no ;, &&, ||, |, & or newlines)\n';

/** Runs each line on one fresh world; each step as [observation content, exit code]. */
async function shell(
  lines: string[],
  extra: Record<string, string> = EXTRA,
): Promise<[string, number | null][]> {
  const world = createScratchWorld('scratch', { files: 1, seed: 0, extra });
  const seen: [string, number | null][] = [];
  for (const command of lines) {
    const result = await world.step({ type: 'command', command, interpreter: 'bash' });
    seen.push([result.observation.content, result.exitCode]);
  }
  return seen;
}

describe('scratch world shell', () => {
  it('keeps the output of the commands the builtin tasks and clients use', async () => {
    expect(
      await shell([
        'cat /data/notes.txt',
        'wc -l /data/notes.txt',
        'echo charlie > /data/last.txt',
        'cat /data/last.txt',
        'ls',
        'ls /data',
        'cd data',
        'pwd',
        'ls',
        'cat notes.txt missing.txt',
        'tail -n 1 notes.txt',
      ]),
    ).toEqual([
      [NOTES, 0],
      ['3 /data/notes.txt\n', 0],
      ['', 0],
      ['charlie\n', 0],
      ['data\n', 0],
      ['file-0.txt\nlast.txt\nnotes.txt\n', 0],
      ['', 0],
      ['/data\n', 0],
      ['file-0.txt\nlast.txt\nnotes.txt\n', 0],
      ['cat: missing.txt: No such file or directory\n', 1],
      ['scratch: tail: command not found\n', 127],
    ]);
  });

  it('ls of a missing path fails like coreutils, exit 2', async () => {
    expect(await shell(['ls /nonexistent'])).toEqual([
      ["ls: cannot access '/nonexistent': No such file or directory\n", 2],
    ]);
  });

  it('ls honours -l, -a, -A and -1 (also combined) and refuses other options, exit 2', async () => {
    const long = [
      'drwxr-xr-x 1 root root 4096 Jan  1 00:00 .',
      'drwxr-xr-x 1 root root 4096 Jan  1 00:00 ..',
      '-rw-r--r-- 1 root root    7 Jan  1 00:00 .hidden',
      '-rw-r--r-- 1 root root   12 Jan  1 00:00 file-0.txt',
      '-rw-r--r-- 1 root root   20 Jan  1 00:00 notes.txt',
    ];
    expect(
      await shell(
        [
          'ls -la /data',
          'ls -l',
          'ls /data',
          'ls -1A /data',
          'ls /data/notes.txt -l',
          'ls -x /data',
          'ls --all',
        ],
        { ...EXTRA, '/data/.hidden': 'secret\n' },
      ),
    ).toEqual([
      [`total 20\n${long.join('\n')}\n`, 0],
      ['total 4\ndrwxr-xr-x 1 root root 4096 Jan  1 00:00 data\n', 0],
      ['file-0.txt\nnotes.txt\n', 0],
      ['.hidden\nfile-0.txt\nnotes.txt\n', 0],
      ['-rw-r--r-- 1 root root 20 Jan  1 00:00 /data/notes.txt\n', 0],
      ["ls: invalid option -- 'x'\nTry 'ls --help' for more information.\n", 2],
      ["ls: unrecognized option '--all'\nTry 'ls --help' for more information.\n", 2],
    ]);
  });

  it('ls of several paths lists files, then each directory under a header; a missing one exits 2', async () => {
    expect(await shell(['ls /data /missing /data/notes.txt'])).toEqual([
      [
        "ls: cannot access '/missing': No such file or directory\n" +
          '/data/notes.txt\n\n/data:\nfile-0.txt\nnotes.txt\n',
        2,
      ],
    ]);
  });

  it('refuses ; && || and & instead of misparsing them, leaving the cwd alone', async () => {
    expect(
      await shell([
        'cd /data; pwd',
        'pwd',
        'cd /data && ls',
        'false || ls',
        'ls &',
        'echo a\necho b',
      ]),
    ).toEqual([
      [ONE_AT_A_TIME, 2],
      ['/\n', 0],
      [ONE_AT_A_TIME, 2],
      [ONE_AT_A_TIME, 2],
      [ONE_AT_A_TIME, 2],
      [ONE_AT_A_TIME, 2],
    ]);
  });

  it('refuses a pipe, but quoted operators are plain text', async () => {
    expect(await shell(['echo a | cat', 'echo "a | cat; b"', "echo 'x && y'"])).toEqual([
      [ONE_AT_A_TIME, 2],
      ['a | cat; b\n', 0],
      ['x && y\n', 0],
    ]);
  });

  it('cd into a missing directory or a file fails, exit 1, and stays put', async () => {
    expect(
      await shell(['cd /x', 'pwd', 'cd /data/notes.txt', 'cd /data /tmp', 'cd', 'pwd']),
    ).toEqual([
      ['cd: /x: No such file or directory\n', 1],
      ['/\n', 0],
      ['cd: /data/notes.txt: Not a directory\n', 1],
      ['cd: too many arguments\n', 1],
      ['', 0],
      ['/\n', 0],
    ]);
  });

  it('rm reads -f and -r as options, not file names, and refuses a directory without -r', async () => {
    expect(
      await shell([
        'rm -rf /nope',
        'rm /data',
        'rm -x /data/notes.txt',
        'rm',
        'rm /data/notes.txt /data/nope.txt',
        'rm -r /data',
        'ls /data',
      ]),
    ).toEqual([
      ['', 0],
      ["rm: cannot remove '/data': Is a directory\n", 1],
      ["rm: invalid option -- 'x'\n", 1],
      ['rm: missing operand\n', 1],
      ["rm: cannot remove '/data/nope.txt': No such file or directory\n", 1],
      ['', 0],
      ["ls: cannot access '/data': No such file or directory\n", 2],
    ]);
  });

  it('tells the agent what its shell accepts in the bash tool', () => {
    const world = createScratchWorld('scratch', { files: 1, seed: 0 });
    const bash = toolsFor(world).find((tool) => tool.function.name === 'bash');
    expect(bash?.function.description).toBe(
      `Run one shell command line and see its output. ${SCRATCH_SHELL_HELP}`,
    );
    expect(bash?.function.description).toContain('no pipes');
    // The submit tool, and the schema the generic terminal tools share, are unchanged.
    expect(toolsFor(world).map((tool) => tool.function.name)).toEqual(
      TERMINAL_TOOLS.map((tool) => tool.function.name),
    );
  });
});
