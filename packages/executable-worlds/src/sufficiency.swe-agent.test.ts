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

  it('counts what the shell reproduces and what SWE-agent tools leave to the recording', async () => {
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
      skipped: 13,
      transitions: 219,
      exact: 15,
      fallback: 187,
      mismatch: 17,
    });
    expect({ edit: byCommand['edit'], ls: byCommand['ls'], cat: byCommand['cat'] }).toEqual({
      // SWE-agent's own tools (edit/open/create…) are not shell programs: recorded answers.
      edit: { transitions: 46, exact: 0, fallback: 46, mismatch: 0 },
      // `create` makes its file in the world too; tty column layouts and files created by
      // `edit`/python runs still differ.
      ls: { transitions: 11, exact: 3, fallback: 0, mismatch: 8 },
      cat: { transitions: 3, exact: 3, fallback: 0, mismatch: 0 },
    });
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
    // Once per replayed command: the 219 transitions, not the 13 harness steps left out.
    expect(pauses).toBe(219);
  });
});
