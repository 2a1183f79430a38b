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
        // does not have (an empty output then counted as exact); 132 and 1,097 while an option
        // just-bash lacks (`uniq -w`, `find -mmin`) counted its refusal as a mismatch; 266 and 963
        // while a refusal a later pipeline stage consumed (`uniq -D … | awk`) went unseen.
        exact: 600,
        fallback: 307,
        mismatch: 922,
      });
      // Prose a model sent as its command counts under one family, as no program.
      expect(byCommand['(not a command)']).toEqual({
        transitions: 2,
        exact: 0,
        fallback: 2,
        mismatch: 0,
      });
      // A ReAct action the model wrote on after (`execute[…]\nObs`) counts under its program.
      expect(Object.keys(byCommand).filter((family) => family.startsWith('execute['))).toEqual([]);
      // `load=$(cat /proc/loadavg | awk …)` counts under cat and awk, not under a word after them.
      expect(Object.keys(byCommand).filter((family) => /^(?:[-+/]|\{.)/.test(family))).toEqual([]);
      expect({ echo: byCommand['echo'], find: byCommand['find'], df: byCommand['df'] }).toEqual({
        // The harness's quote splitting emulated: `echo "…"` lines reproduce.
        echo: { transitions: 112, exact: 96, fallback: 4, mismatch: 12 },
        // Mostly md5sum/du/wc over files whose content no recorded step showed; the fallbacks are
        // tests and options just-bash lacks (`-mmin`, `-execdir`, `| uniq -D`).
        find: { transitions: 861, exact: 286, fallback: 103, mismatch: 472 },
        // System state just-bash does not model: answered from the recording, marked fallback.
        df: { transitions: 27, exact: 0, fallback: 27, mismatch: 0 },
      });
    }, 300_000);

    it('counts an option the shell lacks as a fallback on the GPT-4 runs, a refusal the real shell printed too as before', async () => {
      // The files the Worlds page's `ic-bash` dataset was imported from (a user walk found `uniq:
      // invalid option -- 'w'` among its mismatches, and `Great!` and `Thank` as command families).
      const trajectories = await readSharedTrajectories(
        'intercode/data/results/bash/gpt-4',
        '.json',
      );
      const report = await measureSufficiency(trajectories, { dataset: 'ic-bash' });
      const { trajectories: perTrajectory, byCommand, ...totals } = report;
      expect(totals).toEqual({
        dataset: 'ic-bash',
        worlds: 200,
        skipped: 0,
        transitions: 1176,
        exact: 415,
        // 75 and 686 while the option refusals below counted as mismatches, 160 and 601 while
        // those a later stage of a pipeline consumed did (walk 52: `uniq -D -w 32 | awk …`).
        fallback: 197,
        mismatch: 564,
      });
      const records = perTrajectory.flatMap((trajectory) =>
        trajectory.mismatches.map((check) => ({ id: trajectory.id, ...check })),
      );
      const at = (id: string, step: number) => {
        const check = records.find(
          (record) =>
            record.id === `ic_bash_multiturn_gpt-4_10_turns_${id}` && record.step === step,
        );
        return check === undefined ? null : [check.family, check.outcome, check.reason];
      };
      expect([
        at('fs_1.json#0', 0),
        at('fs_1.json#0', 1),
        // awk printed the first word of uniq's refusal (`uniq:`): the refusal is read from the
        // stderr of the pipeline's programs, run again apart from their output.
        at('fs_1.json#0', 2),
        at('fs_1.json#43', 0),
        at('fs_1.json#45', 3),
        // `sort -nk1,1 | cut -d' ' -f2-`: just-bash sent the refusal down the pipe, `cut` took
        // `sort:` off.
        at('fs_3.json#21', 2),
        // GNU wc has no -u either: the recording shows the refusal (after shopt's errors).
        at('fs_1.json#30', 4),
        // In the output the name was cut off, and `-f` could be awk's `-f/` or cut's `-f2-`; the
        // stderr of the pipeline's programs names awk, which took `-f/` for a program file.
        at('fs_3.json#21', 0),
        // Prose the model sent: the shell found no program, the world answered from the recording.
        at('fs_3.json#4', 1),
        at('fs_4.json#4', 1),
      ]).toEqual([
        ['find', 'fallback', 'unsupported-option:uniq -w'],
        ['find', 'fallback', 'unsupported-option:uniq -D'],
        ['find', 'fallback', 'unsupported-option:uniq -D'],
        ['echo', 'fallback', 'unsupported-option:join -e'],
        ['tar', 'fallback', 'unsupported-option:tar --transform'],
        ['find', 'fallback', 'unsupported-option:sort -nk1,1'],
        ['shopt', 'mismatch', null],
        ['find', 'fallback', 'unsupported-option:awk -f'],
        ['(not a command)', 'fallback', 'not-a-shell-command'],
        ['(not a command)', 'fallback', 'not-a-shell-command'],
      ]);
      const lacked = new Map<string, number>();
      for (const { reason } of records) {
        const program = /^unsupported-option:(\S+) /.exec(reason ?? '')?.[1];
        if (program !== undefined) lacked.set(program, (lacked.get(program) ?? 0) + 1);
      }
      expect(Object.fromEntries([...lacked].toSorted(([a], [b]) => a.localeCompare(b)))).toEqual({
        awk: 11,
        cp: 1,
        // 18 of the 20 are `diff -r`/`-rq` in a pipeline: just-bash's diff compares no trees.
        diff: 20,
        find: 29,
        grep: 1,
        join: 3,
        ls: 1,
        sort: 9,
        split: 2,
        tar: 23,
        uniq: 12,
        xargs: 10,
      });
      expect(byCommand['(not a command)']).toEqual({
        transitions: 2,
        exact: 0,
        fallback: 2,
        mismatch: 0,
      });
      expect(Object.keys(byCommand).filter((family) => /^[A-Z]/.test(family))).toEqual([]);
      expect({ find: byCommand['find'], tar: byCommand['tar'] }).toEqual({
        find: { transitions: 576, exact: 203, fallback: 65, mismatch: 308 },
        tar: { transitions: 26, exact: 2, fallback: 15, mismatch: 9 },
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
