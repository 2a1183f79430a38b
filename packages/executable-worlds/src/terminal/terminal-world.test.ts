import type { Action, Trajectory } from '@terrarium/schema';
import { createReplayWorldModel } from '@terrarium/worlds';
import { describe, expect, it } from 'vitest';
import type { Workspace } from '../world';
import { buildTerminalWorld, createTerminalWorld, programsOf } from './terminal-world';

const bash = (command: string): Action => ({ type: 'command', command, interpreter: 'bash' });

const WORKSPACE: Workspace = {
  cwd: '/repo',
  env: { HOME: '/root' },
  entries: [
    { path: '/repo/a.txt', content: 'alpha\nbeta\n' },
    { path: '/repo/src', content: null },
    { path: '/repo/src/main.py', content: 'print(1)\n' },
  ],
};

async function run(world: ReturnType<typeof createTerminalWorld>, commands: string[]) {
  const out: string[] = [];
  for (const command of commands) out.push((await world.step(bash(command))).observation.content);
  return out;
}

describe('terminal world (just-bash over a copy-on-write FS)', () => {
  it('runs commands against the workspace and tracks cwd and exports across steps', async () => {
    const world = createTerminalWorld('t', WORKSPACE);
    expect(
      await run(world, ['cat a.txt', 'ls', 'cd src && pwd', 'pwd', 'export X=7', 'echo $X']),
    ).toEqual(['alpha\nbeta\n', 'a.txt\nsrc\n', '/repo/src\n', '/repo/src\n', '', '7\n']);
    expect(world.cwd()).toBe('/repo/src');
    expect(world.env()['X']).toBe('7');
    expect(world.steps).toBe(6);
  });

  it('applies shell side effects: redirections, sed -i, mv, cp, rm', async () => {
    const world = createTerminalWorld('t', WORKSPACE);
    await run(world, [
      'echo new > b.txt',
      'sed -i s/alpha/ALPHA/ a.txt',
      'cp a.txt c.txt',
      'mv b.txt src/',
      'rm src/main.py',
    ]);
    expect(world.files()).toEqual(['/repo/a.txt', '/repo/c.txt', '/repo/src/b.txt']);
    expect(world.readFile('/repo/c.txt')).toBe('ALPHA\nbeta\n');
    expect(world.readFile('/repo/src/b.txt')).toBe('new\n');
    expect(world.readFile('/repo/src/main.py')).toBeNull();
  });

  it('a fork continues identically under the same actions and never leaks into its parent', async () => {
    const world = createTerminalWorld('t', WORKSPACE);
    await run(world, ['cd src', 'echo one >> log']);
    const fork = world.fork();
    const script = ['echo two >> log', 'cat log', 'ls -la', 'wc -l log', 'cd .. && ls'];
    const [fromParent, fromFork] = [await run(world, script), await run(fork, script)];
    expect(fromFork).toEqual(fromParent);
    expect(fromParent[1]).toBe('one\ntwo\n');
    await fork.step(bash('rm src/log; echo forked > only-in-fork'));
    expect(world.readFile('/repo/src/log')).toBe('one\ntwo\n');
    expect(world.readFile('/repo/only-in-fork')).toBeNull();
    expect(fork.readFile('/repo/only-in-fork')).toBe('forked\n');
    expect(fork.readFile('/repo/src/log')).toBeNull();
  });

  it('restores a snapshot (files, cwd, env, step count) and stays restorable', async () => {
    const world = createTerminalWorld('t', WORKSPACE);
    await world.step(bash('echo kept > k'));
    const snapshot = world.snapshot();
    await run(world, ['rm a.txt', 'cd src', 'export Y=1', 'echo lost > k']);
    world.restore(snapshot);
    expect(world.readFile('/repo/a.txt')).toBe('alpha\nbeta\n');
    expect(world.readFile('/repo/k')).toBe('kept\n');
    expect(world.cwd()).toBe('/repo');
    expect(world.env()['Y']).toBeUndefined();
    expect(world.steps).toBe(1);
    await world.step(bash('echo again > k'));
    world.restore(snapshot);
    expect(world.readFile('/repo/k')).toBe('kept\n');
    expect(() => createTerminalWorld('other', WORKSPACE).restore(snapshot)).toThrow(
      /cannot restore/,
    );
  });

  it('globs that end in a slash match directories only, as in bash (patches/just-bash)', async () => {
    const world = createTerminalWorld('t', WORKSPACE);
    expect(
      await run(world, [
        'echo */',
        'ls -d /repo/*/',
        'ls -d /repo/*',
        'ls -d a.txt src',
        'echo *.txt/',
      ]),
    ).toEqual(['src/\n', '/repo/src/\n', '/repo/a.txt\n/repo/src\n', 'a.txt\nsrc\n', '*.txt/\n']);
  });

  it('finds its programs on the PATH after going back to a snapshot from before its first step', async () => {
    // The shell writes its command stubs under /bin and /usr/bin when it starts: a capture taken
    // before that does not hold them, and where /usr/bin is the workspace's own and on the PATH
    // (as in InterCode's rebuilt images), the world found no `grep` or `tar` once back there.
    const world = createTerminalWorld('t', {
      ...WORKSPACE,
      env: { HOME: '/root', PATH: '/usr/local/bin:/usr/bin:/bin' },
      // A listing of /usr/bin a recording showed: the folder is the workspace's too.
      entries: [...WORKSPACE.entries, { path: '/usr/bin', content: null }],
    });
    const first = world.snapshot();
    expect(await run(world, ['grep -c a a.txt'])).toEqual(['2\n']);
    world.restore(first);
    expect(await run(world, ['grep -c a a.txt', "tar -o 2>&1 | sed 's/^/> /'"])).toEqual([
      '2\n',
      "> tar: invalid option -- 'o'\n",
    ]);
    await world.reset();
    expect(await run(world, ['grep -c b a.txt'])).toEqual(['1\n']);
  });

  it('reset goes back to the reconstructed workspace', async () => {
    const world = createTerminalWorld('t', WORKSPACE);
    await run(world, ['rm -r src', 'cd /']);
    await world.reset();
    expect(world.files()).toEqual(['/repo/a.txt', '/repo/src/main.py']);
    expect(world.cwd()).toBe('/repo');
    expect(world.steps).toBe(0);
  });

  it('answers programs the shell cannot run from the recording, marked as such', async () => {
    const trajectory: Trajectory = {
      externalId: 'rec',
      sourceFormat: 'swe-agent',
      sourceBenchmark: null,
      domain: 'swe',
      task: null,
      systemPrompt: null,
      tools: [],
      toolsInferred: true,
      agentModel: null,
      outcome: { reward: null, success: null },
      steps: [
        {
          index: 0,
          actor: 'agent',
          action: bash('python main.py'),
          observation: { kind: 'terminal', content: '1\n', callId: null },
          reasoning: null,
          reward: null,
          timing: null,
          metadata: {},
        },
      ],
      metadata: {},
      source: { file: 'x', line: null, record: null },
    };
    const world = buildTerminalWorld(trajectory, { workspace: WORKSPACE });
    expect(await world.step(bash('python main.py'))).toEqual({
      observation: { kind: 'terminal', content: '1\n', callId: null },
      exitCode: null,
      provenance: 'recorded',
      detail: { reason: 'unsupported-command:python' },
    });
    const unknown = await world.step(bash('git status'));
    // Plain words for the agent; the code (`unsupported-command:git`) only in `detail`.
    expect(unknown).toEqual({
      observation: {
        kind: 'error',
        content:
          'the world cannot answer this: it has no git program, and no recording or simulator answers it\n',
        callId: null,
      },
      exitCode: null,
      provenance: 'world-model',
      detail: { reason: 'unsupported-command:git' },
    });

    // A world model that misses (replay of another recording) says so: never an empty output the
    // agent would take for git's own. One that answers gives its answer.
    const replay = createReplayWorldModel([trajectory]);
    const withModel = buildTerminalWorld(trajectory, { workspace: WORKSPACE, fallback: replay });
    expect(await withModel.step(bash('git status'))).toEqual({
      observation: {
        kind: 'error',
        content:
          'the world cannot answer this: it has no git program, and its simulator has no answer either (replay: no recorded transition with this history and action in the dataset)',
        callId: null,
      },
      exitCode: null,
      provenance: 'world-model',
      detail: {
        reason: 'unsupported-command:git',
        backend: 'replay',
        unanswered: 'no recorded transition with this history and action in the dataset',
      },
    });
  });

  it('names prose the shell found no program for as no shell command, a missing program as one', async () => {
    const world = createTerminalWorld(
      'prose',
      { ...WORKSPACE, cwd: '/' },
      { transport: 'intercode' },
    );
    const prose =
      'Great! If you have any more questions or need further assistance, feel free to ask.';
    const reasons: unknown[] = [];
    for (const command of [prose, 'xxd -p a.txt', 'Rscript -e 1', 'echo Great!'])
      reasons.push((await world.step(bash(command))).detail ?? 'ran');
    expect(reasons).toEqual([
      { reason: 'not-a-shell-command' },
      { reason: 'command-not-found' },
      { reason: 'command-not-found' },
      'ran',
    ]);
  });

  it('reproduces the InterCode harness: quote splitting, fresh process per action, cd bookkeeping', async () => {
    const world = createTerminalWorld('ic', { ...WORKSPACE, cwd: '/' }, { transport: 'intercode' });
    expect(
      await run(world, [
        'echo "If you have more"',
        'echo "don\'t"',
        'export Z=1; echo $Z',
        'echo $Z',
        'cd repo/src',
        'ls',
      ]),
    ).toEqual(['If\n', 'Malformed command', '1\n', '\n', '', 'main.py\n']);
    expect(world.cwd()).toBe('/repo/src');
  });

  it('memoized transitions equal shell-run ones, across resets and forks', async () => {
    const script = [
      'echo a >> log',
      'cat log',
      'cd src',
      'ls',
      'cd ..',
      'echo a >> log',
      'wc -l log',
      'export V=1',
      'echo $V',
    ];
    const plain = createTerminalWorld('m', WORKSPACE, { memoize: false });
    const memo = createTerminalWorld('m', WORKSPACE);
    const expected = await run(plain, script);
    for (let round = 0; round < 3; round++) {
      await memo.reset();
      expect(await run(memo, script)).toEqual(expected);
      expect(memo.readFile('/repo/log')).toBe('a\na\n');
      expect(memo.env()['V']).toBe('1');
    }
    // A fork shares the memo; its own later changes are still its own.
    await memo.reset();
    const fork = memo.fork();
    expect(await run(fork, script)).toEqual(expected);
    expect(memo.readFile('/repo/log')).toBeNull();
  });
});

describe('programsOf', () => {
  it('names the program of each simple command, a substituted one for an assignment', () => {
    // Recorded InterCode bash commands (gpt-4 runs) that were filed under a word after the program.
    expect(programsOf("proc_load_average=$(cat /proc/loadavg | awk '{print $1}')")).toEqual([
      'cat',
      'awk',
    ]);
    expect(programsOf("proc_load_average=$(awk '{print $1}' /proc/loadavg)")).toEqual(['awk']);
    expect(programsOf('address=$(dig +short google.com | head -n 1)')).toEqual(['dig', 'head']);
    expect(programsOf('x=$( pwd ); echo "$x"')).toEqual(['pwd', 'echo']);
    expect(programsOf('n=`wc -l < a.txt`')).toEqual(['wc']);
    expect(programsOf('LC_ALL=C sort -u names.txt')).toEqual(['sort']);
    expect(programsOf('x=1')).toEqual(['']);
    expect(programsOf('find . -name "*.py" | xargs wc -l')).toEqual(['find', 'xargs']);
  });
});

describe('state', () => {
  it("counts files and bytes over the same files: the workspace's, not /bin's or /dev's", async () => {
    const world = createTerminalWorld('t', WORKSPACE);
    // 'alpha\nbeta\n' (11 bytes) and 'print(1)\n' (9), then 'new\n' (4).
    expect(world.state()).toMatchObject({ files: 2, bytes: 20 });
    await run(world, ['echo new > b.txt']);
    expect(world.state()).toMatchObject({ files: 3, bytes: 24 });
  });
});
