import { sharedDataAvailable, UNSHIPPED_DATA_REASON } from '@terrarium/schema/testing';
import { describe, expect, it } from 'vitest';
import { measureSufficiency } from './sufficiency';
import { WorkspaceReconstruction } from './terminal/reconstruct';
import { readSharedTrajectories } from './testing/read-files';

describe.skipIf(!sharedDataAvailable('intercode'))(
  `sufficiency on the real InterCode bash runs ${UNSHIPPED_DATA_REASON}`,
  () => {
    it('replays all 400 episodes in worlds rebuilt from them and counts exact reproductions', async () => {
      const trajectories = await readSharedTrajectories('intercode/data/results/bash', '.json');
      const report = await measureSufficiency(trajectories, { dataset: 'intercode/bash' });
      const { trajectories: perTrajectory, byCommand, ...totals } = report;
      expect(perTrajectory).toHaveLength(400);
      expect(totals).toEqual({
        dataset: 'intercode/bash',
        worlds: 400,
        skipped: 248,
        transitions: 1829,
        // 597 and 1,105 before just-bash's `*/` globs and `ls -d` were patched (patches/); 603, 127
        // and 1,099 while `x=$(dig …)` was filed under its next word, so the world ran a program it
        // does not have (an empty output then counted as exact).
        exact: 600,
        fallback: 132,
        mismatch: 1097,
      });
      // A ReAct action the model wrote on after (`execute[…]\nObs`) counts under its program.
      expect(Object.keys(byCommand).filter((family) => family.startsWith('execute['))).toEqual([]);
      // `load=$(cat /proc/loadavg | awk …)` counts under cat and awk, not under a word after them.
      expect(Object.keys(byCommand).filter((family) => /^(?:[-+/]|\{.)/.test(family))).toEqual([]);
      expect({ echo: byCommand['echo'], find: byCommand['find'], df: byCommand['df'] }).toEqual({
        // The harness's quote splitting emulated: `echo "…"` lines reproduce.
        echo: { transitions: 112, exact: 96, fallback: 0, mismatch: 16 },
        // Mostly md5sum/du/wc over files whose content no recorded step showed.
        find: { transitions: 861, exact: 286, fallback: 0, mismatch: 575 },
        // System state just-bash does not model: answered from the recording, marked fallback.
        df: { transitions: 27, exact: 0, fallback: 27, mismatch: 0 },
      });
    }, 300_000);

    it('pools what the episodes of one file system saw before they changed it', async () => {
      const trajectories = await readSharedTrajectories(
        'intercode/data/results/bash/gpt-4',
        'fs_1.json',
      );
      const reconstruction = new WorkspaceReconstruction();
      for (const trajectory of trajectories) reconstruction.add(trajectory);
      const workspace = reconstruction.workspace();
      const paths = new Set(workspace.entries.map((entry) => entry.path));
      expect(workspace.cwd).toBe('/');
      expect(paths.has('/testbed/Hello.java')).toBe(true);
      expect(paths.has('/testbed/dir1/AnotherHello.java')).toBe(true);
      expect(reconstruction.stats()).toEqual({
        trajectories: 60,
        stepsRead: 241,
        files: 21,
        filesWithContent: 0,
        directories: 14,
      });
    }, 120_000);
  },
);
