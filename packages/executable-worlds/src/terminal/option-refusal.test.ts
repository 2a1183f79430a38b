import { describe, expect, it } from 'vitest';
import { lackedOption, refusalsIn } from './option-refusal';
import { createTerminalWorld } from './terminal-world';

describe('refusalsIn', () => {
  it('reads the refusals just-bash prints for options it lacks, as a world prints them', async () => {
    const world = createTerminalWorld('refusals', {
      cwd: '/w',
      env: {},
      entries: [{ path: '/w/a.txt', content: 'b\na\na\n' }],
    });
    const printed: string[] = [];
    for (const command of [
      'sort a.txt | uniq -d -w 32',
      'tar -cf /b.tar --transform s/a/b/ a.txt',
      'find /w -mmin -60',
      'sort -rnk 5 a.txt',
      // A stage's message goes down the pipe in just-bash, so `cut` takes the program's name off.
      "sort -nk1,1 a.txt | cut -d' ' -f2-",
      'set -Q',
    ]) {
      const step = await world.step({ type: 'command', command, interpreter: 'bash' });
      printed.push(step.observation.content);
    }
    expect(printed.slice(0, 5)).toEqual([
      "uniq: invalid option -- 'w'\n",
      "tar: unrecognized option '--transform'\n",
      "find: unknown predicate '-mmin'\n",
      "sort: invalid option -- 'rnk'\n",
      "invalid option -- 'nk1,1'\n",
    ]);
    expect(printed.map(refusalsIn)).toEqual([
      [{ program: 'uniq', option: '-w', kind: 'short' }],
      [{ program: 'tar', option: '--transform', kind: 'long' }],
      [{ program: 'find', option: '-mmin', kind: 'predicate' }],
      [{ program: 'sort', option: '-rnk', kind: 'short' }],
      [{ program: null, option: '-nk1,1', kind: 'short' }],
      [{ program: 'set', option: '-Q', kind: 'short' }],
    ]);
  });

  it("reads the real programs' refusals too: GNU's help line after, older find's backtick, a path", () => {
    expect(
      refusalsIn(
        [
          "wc: invalid option -- 'u'",
          "Try 'wc --help' for more information.",
          "find: unknown predicate `-c'",
          "mv: unrecognized option '--exclude=*/'",
          "/usr/bin/sort: invalid option -- 'Q'",
          '/bin/bash: line 1: set: -Q: invalid option',
          '',
        ].join('\n'),
      ),
    ).toEqual([
      { program: 'wc', option: '-u', kind: 'short' },
      { program: 'find', option: '-c', kind: 'predicate' },
      { program: 'mv', option: '--exclude=*/', kind: 'long' },
      { program: 'sort', option: '-Q', kind: 'short' },
      { program: 'set', option: '-Q', kind: 'short' },
    ]);
  });

  it('takes no other error for an option refusal', () => {
    expect(
      refusalsIn(
        [
          // just-bash's tar on a `-` operand: no option is named, so none is lacking.
          "tar: invalid option -- ''",
          // The option exists; its argument is missing.
          "join: option requires an argument -- 'e'",
          '/bin/bash: line 1: shopt: find: invalid shell option name',
          // A script's own getopts.
          'bash: illegal option -- x',
          "xargs: invalid number for -P: 'bash:'",
          "find: invalid argument `-o=w' to `-perm'",
        ].join('\n'),
      ),
    ).toEqual([]);
  });
});

describe('lackedOption', () => {
  it('names the program and option the world refused and the real shell ran', () => {
    // ic_bash_multiturn_gpt-4_10_turns_fs_1.json#0, step 0.
    expect(
      lackedOption(
        "uniq: invalid option -- 'w'\n",
        'f32a3a97638afeb2ee2a15cfe335ab72  /testbed/Hello.java\n',
        'find /testbed -type f -name "*.java" -exec md5sum {} + | sort | uniq -d -w 32',
      ),
    ).toEqual({ program: 'uniq', option: '-w', kind: 'short' });
    // A program run by another's argument (`find -exec cp …`), refused twice.
    expect(
      lackedOption(
        "cp: unrecognized option '--parents'\ncp: unrecognized option '--parents'\n",
        '/testbed/dir3/subdir1/subsubdir1/FooBar/file.txt\n',
        'find /testbed -name "*file.txt*" -exec cp --parents {} . \\;',
      ),
    ).toEqual({ program: 'cp', option: '--parents', kind: 'long' });
    // Refused by the real join too, but for another reason: it has `-e`, the world does not.
    expect(
      lackedOption(
        "join: invalid option -- 'e'\n",
        "join: option requires an argument -- 'e'\nTry 'join --help' for more information.\n",
        'join -t , -1 1 -2 1 -a 1 -e',
      ),
    ).toEqual({ program: 'join', option: '-e', kind: 'short' });
  });

  it('leaves a refusal the recording shows too: the real program lacks the option as well', () => {
    // ic_bash_multiturn_gpt-4_10_turns_fs_1.json#30, step 4: GNU wc has no `-u` either.
    const line =
      'shopt -s nocaseglob find "${DIRECTORY}" -type f -iname \'*[aeiou]*\' | wc -l shopt -u nocaseglob';
    expect(
      lackedOption(
        "wc: invalid option -- 'u'\n",
        "/bin/bash: line 1: shopt: find: invalid shell option name\nwc: invalid option -- 'u'\nTry 'wc --help' for more information.\n",
        line,
      ),
    ).toBeNull();
    // Older findutils quote with a backtick (ic_bash_react_10_turns_fs_1.json#25, step 5).
    expect(
      lackedOption(
        "find: unknown predicate '-c'\n",
        "find: unknown predicate `-c'\n",
        'find /testbed -name "*.html" -type f -c',
      ),
    ).toBeNull();
    // The same word refused at another letter: GNU ls stops at `e` of -maxdepth, just-bash at `m`.
    expect(
      lackedOption(
        "ls: invalid option -- 'm'\n",
        "ls: invalid option -- 'e'\nTry 'ls --help' for more information.\n",
        'ls -d /workspace/*/ -maxdepth 1',
      ),
    ).toBeNull();
  });

  it('attributes a refusal whose name a later stage cut off only when one program can be meant', () => {
    expect(
      lackedOption(
        "invalid option -- 'nk1,1'\n",
        '/workspace/.hidden.txt\n',
        "find /workspace -type f | awk -F/ '{print NF-1, $0}' | sort -nk1,1 | cut -d' ' -f2-",
      ),
    ).toEqual({ program: 'sort', option: '-nk1,1', kind: 'short' });
    // `-f`: awk's `-f/` or cut's `-f2-`.
    expect(
      lackedOption(
        "invalid option -- 'f'\n",
        'awk: read error (Is a directory)\n',
        "find /workspace -type f | awk -f/ '{print nf-1, $0}' | sort -n | cut -d' ' -f2-",
      ),
    ).toBeNull();
  });

  it('takes no printed text for a refusal unless the line ran that program with that option', () => {
    expect(
      lackedOption("wc: invalid option -- 'u'\n", '', 'echo "wc: invalid option -- \'u\'"'),
    ).toBeNull();
    expect(lackedOption("uniq: invalid option -- 'w'\n", '', 'cat notes.txt')).toBeNull();
    expect(lackedOption('', '', 'uniq -w 3 a.txt')).toBeNull();
  });
});
