import { sharedDataPath } from '@terrarium/schema/testing';
import { describe, expect, it } from 'vitest';
import { measureSufficiency, replaySufficiency } from './sufficiency';
import { buildTerminalWorld } from './terminal/terminal-world';
import { readSharedTrajectories, readTrajectoryFile } from './testing/read-files';

// SWE-agent data is MIT (../shared/data/swe-agent/LICENSE.upstream).
describe('sufficiency on the real SWE-agent trajectories', () => {
  it('rebuilds the repository listing a trajectory showed and reproduces it exactly', async () => {
    const [trajectory] = await readTrajectoryFile(
      sharedDataPath(
        'swe-agent/trajectories/demonstrations/human_thought__swe-bench-HumanEvalFix-python__lcb__t-0.00__p-0.95__c-4.00__install-0/humanevalfix-python-0.traj',
      ),
    );
    if (trajectory === undefined) throw new Error('no trajectory read');
    const world = buildTerminalWorld(trajectory);
    expect(world.cwd()).toBe('/swe-bench__humanevalfix-python');
    const listing = await world.step({ type: 'command', command: 'ls -a\n', interpreter: null });
    expect(listing).toEqual({
      observation: { kind: 'terminal', content: '.\n..\n.git\nmain.py\n', callId: null },
      exitCode: 0,
      provenance: 'executed',
    });
  });

  it('counts what the shell and SWE-agent tools reproduce and what they leave to the recording', async () => {
    const trajectories = await readSharedTrajectories('swe-agent', '.traj');
    const {
      trajectories: per,
      byCommand,
      ...totals
    } = await measureSufficiency(trajectories, { dataset: 'swe-agent' });
    expect(per).toHaveLength(22);
    expect(totals).toEqual({
      dataset: 'swe-agent',
      worlds: 22,
      // 13, and 16 `submit` transitions counted as fallbacks, while only a bare `submit` was
      // left out: EnIGMA's take the flag (walk 52).
      skipped: 29,
      transitions: 203,
      // 55 and 17 while `pwd` in the EnIGMA `eps` run, which printed the path without a final
      // newline as that harness does, counted a mismatch for the newline alone.
      exact: 56,
      fallback: 131,
      mismatch: 16,
    });
    expect(byCommand['submit']).toBeUndefined();
    expect(byCommand['pwd']).toEqual({ transitions: 1, exact: 1, fallback: 0, mismatch: 0 });
    const families = ['open', 'edit', 'create', 'find_file', 'ls', 'cat'];
    expect(Object.fromEntries(families.map((family) => [family, byCommand[family]]))).toEqual({
      // SWE-agent's tools run on the world's files: a file shown whole before any change, or one
      // made by `create`. Fields.py and numpy_handler.py were only shown in part, and the 1.x and
      // cursor configurations (`\r\n`, cursor marks, search/replace edits) are not emulated.
      open: { transitions: 19, exact: 7, fallback: 12, mismatch: 0 },
      // The edit gate's three refusals of known files included (an unexpected indent, twice, and
      // an undefined name).
      edit: { transitions: 46, exact: 22, fallback: 24, mismatch: 0 },
      create: { transitions: 16, exact: 11, fallback: 5, mismatch: 0 },
      // Only a listed part of each repository is known: no search over a tree is executed.
      find_file: { transitions: 12, exact: 0, fallback: 12, mismatch: 0 },
      // tty column layouts, and a repository listing taken after the first change, still differ.
      ls: { transitions: 11, exact: 3, fallback: 0, mismatch: 8 },
      cat: { transitions: 3, exact: 3, fallback: 0, mismatch: 0 },
    });
    // Every tool answer the world computed is the recorded one.
    const toolMismatches = per
      .flatMap((trajectory) => trajectory.mismatches)
      .filter(
        (check) => families.slice(0, 4).includes(check.family) && check.outcome === 'mismatch',
      );
    expect(toolMismatches).toEqual([]);
  }, 120_000);

  it('replays world by world, pausing before each command, to the same report', async () => {
    const trajectories = await readSharedTrajectories('swe-agent', '.traj');
    let pauses = 0;
    const replay = replaySufficiency(trajectories, {
      dataset: 'swe-agent',
      pause: async () => {
        pauses += 1;
        await Promise.resolve();
      },
    });
    const worlds: string[] = [];
    let next = await replay.next();
    while (next.done !== true) {
      worlds.push(next.value.id);
      next = await replay.next();
    }
    expect(next.value).toEqual(await measureSufficiency(trajectories, { dataset: 'swe-agent' }));
    expect(worlds).toEqual(trajectories.map((trajectory) => trajectory.externalId));
    // Once per replayed command: the 203 transitions, not the 29 harness steps left out.
    expect(pauses).toBe(203);
  });
});
