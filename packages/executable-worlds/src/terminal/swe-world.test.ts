import type { Action, Trajectory } from '@terrarium/schema';
import { sharedDataPath } from '@terrarium/schema/testing';
import { describe, expect, it } from 'vitest';
import { readTrajectoryFile } from '../testing/read-files';
import { reconstructWorkspace } from './reconstruct';
import { sweDialectOf } from './swe-tools';
import { buildTerminalWorld } from './terminal-world';

// SWE-agent data is MIT (../shared/data/swe-agent/LICENSE.upstream).
const DEMOS = 'swe-agent/trajectories/demonstrations';
const HUMANEVAL = `${DEMOS}/human_thought__swe-bench-HumanEvalFix-python__lcb__t-0.00__p-0.95__c-4.00__install-0/humanevalfix-python-0.traj`;
const MARSHMALLOW = `${DEMOS}/replay__marshmallow-code__marshmallow-1867__default__t-0.20__p-0.95__c-2.00__install-1___install_from_source/marshmallow-code__marshmallow-1867.traj`;

async function trajectoryAt(path: string): Promise<Trajectory> {
  const [trajectory] = await readTrajectoryFile(sharedDataPath(path));
  if (trajectory === undefined) throw new Error(`no trajectory in ${path}`);
  return trajectory;
}

function recorded(trajectory: Trajectory, index: number): { action: Action; content: string } {
  const step = trajectory.steps[index];
  if (step?.observation === undefined || step.observation === null)
    throw new Error(`no step ${index}`);
  return { action: step.action, content: step.observation.content };
}

const unknownMarshmallow = (file: string) => ({
  reason: `unknown-content:/marshmallow-code__marshmallow/${file}`,
});
const aci = (command: string): Action => ({ type: 'command', command, interpreter: 'aci' });
const bash = (command: string): Action => ({ type: 'command', command, interpreter: 'bash' });

describe("SWE-agent's tools in a world rebuilt from a recording", () => {
  it('seeds a file the recording showed whole, and marks the others placeholders', async () => {
    const workspace = reconstructWorkspace(await trajectoryAt(MARSHMALLOW));
    const files = workspace.entries.filter((entry) => entry.content !== null);
    expect(files.filter((entry) => entry.placeholder !== true).map((entry) => entry.path)).toEqual([
      '/marshmallow-code__marshmallow/setup.py',
    ]);
    // The rest of the top level was only listed (`ls -F`): empty stand-ins, marked as such.
    const placeholders = files.filter((entry) => entry.placeholder === true);
    expect(placeholders).toHaveLength(13);
    expect(placeholders.every((entry) => entry.content === '')).toBe(true);
    const setup = workspace.entries.find(
      (entry) => entry.path === '/marshmallow-code__marshmallow/setup.py',
    );
    expect(setup?.content?.split('\n').slice(0, 2)).toEqual([
      'import re',
      'from setuptools import setup, find_packages',
    ]);
  });

  it("runs open and edit on the world's files, and the shell sees the edit", async () => {
    const trajectory = await trajectoryAt(HUMANEVAL);
    const world = buildTerminalWorld(trajectory);
    const open = recorded(trajectory, 1);
    const edit = recorded(trajectory, 2);
    expect(await world.step(open.action)).toEqual({
      observation: { kind: 'terminal', content: open.content, callId: null },
      exitCode: 0,
      provenance: 'executed',
    });
    const before = world.snapshot();
    expect((await world.step(edit.action)).observation.content).toBe(edit.content);
    expect((await world.step(bash('grep -n abs main.py\n'))).observation.content).toBe(
      '15:                distance = abs(elem - elem2)\n',
    );
    world.restore(before);
    expect((await world.step(bash('grep -c abs main.py\n'))).observation.content).toBe('0\n');
  });

  it('keeps the open file and window in snapshots and forks', async () => {
    const world = buildTerminalWorld(await trajectoryAt(HUMANEVAL));
    await world.step(aci('open main.py\n'));
    const fork = world.fork();
    const opened = world.snapshot();
    expect((await fork.step(aci('create other.py\n'))).observation.content).toBe(
      '[File: /swe-bench__humanevalfix-python/other.py (1 lines total)]\n1:\n',
    );
    await world.step(aci('create third.py\n'));
    world.restore(opened);
    const header = async (target: typeof world) =>
      (await target.step(aci('goto 1\n'))).observation.content.split('\n')[0];
    expect(await header(world)).toBe(
      '[File: /swe-bench__humanevalfix-python/main.py (23 lines total)]',
    );
    expect(await header(fork)).toBe(
      '[File: /swe-bench__humanevalfix-python/other.py (1 lines total)]',
    );
    // A world reset closes the file.
    await world.reset();
    expect((await world.step(aci('goto 1\n'))).observation.content).toBe(
      'No file open. Use the open command first.\n',
    );
  });

  it('leaves a file whose content it never saw to the fallback, naming it', async () => {
    const world = buildTerminalWorld(await trajectoryAt(MARSHMALLOW));
    const answer = await world.step(aci('open README.rst\n'));
    expect(answer.provenance).toBe('world-model');
    expect(answer.detail).toEqual({
      reason: 'unknown-content:/marshmallow-code__marshmallow/README.rst',
    });
    // A copy keeps the mark; a file the world wrote (from nothing unseen) is its own.
    await world.step(bash('cp README.rst COPY.rst\n'));
    await world.step(bash('echo hi > NEW.rst\n'));
    expect((await world.step(aci('open COPY.rst\n'))).detail).toEqual({
      reason: 'unknown-content:/marshmallow-code__marshmallow/COPY.rst',
    });
    expect((await world.step(aci('open NEW.rst\n'))).observation.content).toBe(
      '[File: /marshmallow-code__marshmallow/NEW.rst (1 lines total)]\n1:hi\n',
    );
  });

  it('takes the marks from the workspace it is given, as a curriculum overlay or a test builds it', async () => {
    const trajectory = await trajectoryAt(MARSHMALLOW);
    const workspace = reconstructWorkspace(trajectory);
    const readme = '/marshmallow-code__marshmallow/README.rst';
    // An overlay appends entries: the later one at a placeholder's path is known content, and the
    // reconstruction's own entries keep what they knew.
    const overlaid = buildTerminalWorld(trajectory, {
      workspace: {
        ...workspace,
        entries: [...workspace.entries, { path: readme, content: 'Hi.\n' }],
      },
    });
    expect((await overlaid.step(aci('open README.rst\n'))).observation.content).toBe(
      `[File: ${readme} (1 lines total)]\n1:Hi.\n`,
    );
    expect((await overlaid.step(aci('open setup.py\n'))).provenance).toBe('executed');
    expect((await overlaid.step(aci('open tox.ini\n'))).detail).toEqual({
      reason: 'unknown-content:/marshmallow-code__marshmallow/tox.ini',
    });
    // Entries without the mark are files whose content is what they say, empty ones included.
    const unmarked = buildTerminalWorld(trajectory, {
      workspace: {
        ...workspace,
        entries: workspace.entries.map((entry) => ({ path: entry.path, content: entry.content })),
      },
    });
    expect(await unmarked.step(aci('open tox.ini\n'))).toEqual({
      observation: {
        kind: 'terminal',
        content: '[File: /marshmallow-code__marshmallow/tox.ini (0 lines total)]\n',
        callId: null,
      },
      exitCode: 0,
      provenance: 'executed',
    });
  });

  it('keeps the mark on what a shell step writes from a placeholder', async () => {
    const world = buildTerminalWorld(await trajectoryAt(MARSHMALLOW));
    const fresh = world.fork();
    const reason = async (file: string) => (await world.step(aci(`open ${file}\n`))).detail;
    await world.step(bash('echo extra >> README.rst\n'));
    expect(await reason('README.rst')).toEqual(unknownMarshmallow('README.rst'));
    await world.step(bash('sed -i s/a/b/ tox.ini\n'));
    expect(await reason('tox.ini')).toEqual(unknownMarshmallow('tox.ini'));
    await world.step(bash('cat AUTHORS.rst > CAT.rst\n'));
    expect(await reason('CAT.rst')).toEqual(unknownMarshmallow('CAT.rst'));
    // Named on the line, even when the step does not read it.
    await world.step(bash('echo "see CHANGELOG.rst" > NOTE.rst\n'));
    expect(await reason('NOTE.rst')).toEqual(unknownMarshmallow('NOTE.rst'));
    // A step that neither reads nor names one writes known content, and `edit` may run on it.
    await world.step(bash('echo hi > NEW.rst\n'));
    expect((await world.step(aci('open NEW.rst\n'))).provenance).toBe('executed');
    // A memoized replay of a marking step (same state, same line) marks as the first run did.
    await fresh.step(bash('echo extra >> README.rst\n'));
    expect((await fresh.step(aci('open README.rst\n'))).detail).toEqual(
      unknownMarshmallow('README.rst'),
    );
  });

  it("settles the world's copy of a file after an edit left to the fallback", async () => {
    const base = await trajectoryAt(HUMANEVAL);
    const template = base.steps[2];
    if (template === undefined) throw new Error('no edit step');
    // The linter cannot tell `__all__` (F822), so this edit goes to the fallback.
    const edit = aci('edit 1:1\n__all__ = ["x"]\nend_of_edit\n');
    const answered = (content: string): Trajectory => ({
      ...base,
      steps: [
        ...base.steps,
        {
          ...template,
          index: base.steps.length,
          action: edit,
          observation: { kind: 'terminal', content, callId: null },
        },
      ],
    });
    const lineOne = async (world: ReturnType<typeof buildTerminalWorld>) => {
      await world.step(aci('open main.py\n'));
      const answer = await world.step(edit);
      expect(answer.detail).toEqual({
        reason: 'unverifiable-lint:/swe-bench__humanevalfix-python/main.py',
      });
      const goto = await world.step(aci('goto 1\n'));
      return goto.provenance === 'executed' ? goto.observation.content.split('\n')[1] : goto.detail;
    };
    // The recording says SWE-agent applied it: so does the world.
    const updated = `[File: /swe-bench__humanevalfix-python/main.py (23 lines total)]\n1:__all__ = ["x"]\nFile updated. Please review the changes and make sure they are correct (correct indentation, no duplicate lines, etc). Edit the file again if necessary.\n`;
    expect(await lineOne(buildTerminalWorld(answered(updated)))).toBe('1:__all__ = ["x"]');
    // The recording says the gate refused it: the file is as it was.
    const refused =
      "Your proposed edit has introduced new syntax error(s). Please understand the fixes and retry your edit commmand.\n\nERRORS:\n- F822 undefined name 'x' in __all__\n…\nYour changes have NOT been applied. Please fix your edit command and try again.\n";
    expect(await lineOne(buildTerminalWorld(answered(refused)))).toBe('1:from typing import List');
    // No recorded answer: the file's content is no longer the world's to tell.
    expect(await lineOne(buildTerminalWorld(base))).toEqual({
      reason: 'unknown-content:/swe-bench__humanevalfix-python/main.py',
    });
  });

  it('resets the run of scrolls on any other action', async () => {
    const world = buildTerminalWorld(await trajectoryAt(HUMANEVAL));
    await world.step(bash('seq 400 > long.txt\n'));
    await world.step(aci('open long.txt\n'));
    await world.step(aci('scroll_down\n'));
    await world.step(aci('scroll_down\n'));
    await world.step(bash('true\n'));
    expect((await world.step(aci('scroll_down\n'))).provenance).toBe('executed');
    await world.step(aci('scroll_down\n'));
    expect((await world.step(aci('scroll_down\n'))).detail).toEqual({
      reason: 'unverified-scroll-warning',
    });
  });

  it('prints the real path of a file reached through a link', async () => {
    const world = buildTerminalWorld(await trajectoryAt(HUMANEVAL));
    await world.step(bash('mkdir -p real && echo x > real/a.txt && ln -s real link\n'));
    expect((await world.step(aci('open link/a.txt\n'))).observation.content).toBe(
      '[File: /swe-bench__humanevalfix-python/real/a.txt (1 lines total)]\n1:x\n',
    );
    expect((await world.step(aci('search_file x link/a.txt\n'))).observation.content).toBe(
      'Found 1 matches for "x" in /swe-bench__humanevalfix-python/real/a.txt:\nLine 1:x\nEnd of matches for "x" in /swe-bench__humanevalfix-python/real/a.txt\n',
    );
  });

  it('never replays a transition memoized on known content onto a placeholder of the same bytes', async () => {
    const world = buildTerminalWorld(await trajectoryAt(MARSHMALLOW));
    await world.step(bash('true\n'));
    const placeholder = world.fork();
    // Same path, same (empty) content, same cwd and env: only the mark differs.
    await world.step(bash('rm README.rst\n'));
    await world.step(bash('touch README.rst\n'));
    await world.step(bash('echo extra >> README.rst\n'));
    expect((await world.step(aci('open README.rst\n'))).provenance).toBe('executed');
    await placeholder.step(bash('echo extra >> README.rst\n'));
    expect((await placeholder.step(aci('open README.rst\n'))).detail).toEqual(
      unknownMarshmallow('README.rst'),
    );
  });
});

describe('the EnIGMA harness in a world rebuilt from a CTF recording', () => {
  const EPS = `${DEMOS}/ctf/crypto/eps.traj`;
  const ROCK = `${DEMOS}/ctf/rev/rock.traj`;

  it('is told by the shell outputs where no file window shows it, and drops their final newline', async () => {
    const eps = await trajectoryAt(EPS);
    expect(sweDialectOf(eps)).toBe('enigma');
    const world = buildTerminalWorld(eps);
    const pwd = recorded(eps, 1);
    expect(pwd.action).toEqual({ type: 'command', command: 'pwd\n', interpreter: 'bash' });
    // Walk 52: the path came back with a newline the agent never saw, and counted a mismatch.
    expect(await world.step(pwd.action)).toEqual({
      observation: {
        kind: 'terminal',
        content: '/__home__minghao__projects__LLM_CTF_Dataset_Dev__2015__CSAW-Quals__crypto__eps',
        callId: null,
      },
      exitCode: 0,
      provenance: 'executed',
    });
    expect(pwd.content).toBe(
      '/__home__minghao__projects__LLM_CTF_Dataset_Dev__2015__CSAW-Quals__crypto__eps',
    );
  });

  it('keeps telling it by the file windows where there are some, and 0.x runs apart', async () => {
    expect(sweDialectOf(await trajectoryAt(ROCK))).toBe('enigma');
    expect(sweDialectOf(await trajectoryAt(HUMANEVAL))).toBe('classic');
    expect(sweDialectOf(await trajectoryAt(MARSHMALLOW))).toBe('classic');
  });
});
