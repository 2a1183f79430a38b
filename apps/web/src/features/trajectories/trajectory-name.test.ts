import { describe, expect, it } from 'vitest';
import { displayId, taskHeadline, trajectoryName } from './trajectory-name';

describe('trajectory names', () => {
  it('drops the folders and extension of a file-like id, keeps other ids whole', () => {
    expect(
      displayId(
        'trajectories/demonstrations/replay__marshmallow-code__marshmallow-1867/marshmallow-code__marshmallow-1867.traj',
      ),
    ).toBe('marshmallow-code__marshmallow-1867');
    expect(displayId('task-0-trial-0')).toBe('task-0-trial-0');
    expect(displayId('ic_bash_multiturn_gpt-4_10_turns_fs_1.json#0')).toBe(
      'ic_bash_multiturn_gpt-4_10_turns_fs_1.json#0',
    );
  });

  it('shows the first line of a task that is not a template heading', () => {
    // The tau2 retail task template (from the real file): headings, then the domain name alone.
    expect(
      taskHeadline(
        'Domain:\nretail\n\nReason for call:\nYou want to know how much balance does your gift card have.\n\nKnown info:\nYou are Isabella Lopez.',
      ),
    ).toBe('You want to know how much balance does your gift card have.');
    expect(
      taskHeadline(
        "We're currently solving the following issue within our repository. Here's the issue text:\nISSUE:\nTypeError in pixel_array\n",
      ),
    ).toBe('TypeError in pixel_array');
    expect(taskHeadline('Calculate a list of duplicate md5 sum hashes')).toBe(
      'Calculate a list of duplicate md5 sum hashes',
    );
    expect(taskHeadline('Summary:')).toBe('Summary:');
    expect(taskHeadline(null)).toBeNull();
  });

  it('names a run by its task and trial, or its instance, not by a UUID or its settings', () => {
    // Real ids and metadata of the demo data (tau2-bench, tau-bench v1, SWE-agent, InterCode).
    expect(
      trajectoryName({
        externalId: 'b762699f-cf72-4a2f-b500-5bbe1258209c',
        taskId: '13',
        trial: '0',
      }),
    ).toEqual({ name: 'task 13 · trial 0', detail: null });
    // tau-bench v1's id spells the same task and trial: named as tau2's are.
    expect(trajectoryName({ externalId: 'task-0-trial-0', taskId: '0', trial: '0' })).toEqual({
      name: 'task 0 · trial 0',
      detail: null,
    });
    // An id that names the task among other words keeps them.
    expect(trajectoryName({ externalId: 'task-0-trial-0-retry', taskId: '0', trial: '0' })).toEqual(
      { name: 'task-0-trial-0-retry', detail: null },
    );
    expect(
      trajectoryName({
        externalId:
          '../demo/data/swe-agent/gpt4__swe-bench-dev-easy_first_only__default__t-0.00__p-0.95__c-3.00__install-1__pydicom__pydicom-1458.traj',
        taskId: null,
        trial: null,
      }),
    ).toEqual({
      name: 'pydicom__pydicom-1458',
      detail: 'gpt4__swe-bench-dev-easy_first_only__default__t-0.00__p-0.95__c-3.00__install-1',
    });
    expect(
      trajectoryName({
        externalId:
          'replay__marshmallow-code__marshmallow-1867__xml_sys-env_window100__t-0.20__p-0.95__c-2.00__install-1__marshmallow-code__marshmallow-1867.traj',
        taskId: null,
        trial: null,
      }),
    ).toEqual({
      name: 'marshmallow-code__marshmallow-1867',
      // The settings without the instance they repeat: what tells its runs apart.
      detail: 'replay__xml_sys-env_window100__t-0.20__p-0.95__c-2.00__install-1',
    });
    expect(
      trajectoryName({ externalId: 'ctf__crypto__BabyEncryption.traj', taskId: null, trial: null }),
    ).toEqual({ name: 'ctf__crypto__BabyEncryption', detail: null });
    expect(
      trajectoryName({
        externalId: '../demo/data/swe-agent/ctf__crypto__BabyEncryption.traj',
        taskId: null,
        trial: null,
      }),
    ).toEqual({ name: 'ctf__crypto__BabyEncryption', detail: null });
    // The demo's flattened copies whose run folder has no settings the patterns know.
    expect(
      trajectoryName({
        externalId:
          'replay__marshmallow-code__marshmallow-1867__default__t-0.20__p-0.95__c-2.00__install-1___install_from_source__marshmallow-code__marshmallow-1867.traj',
        taskId: null,
        trial: null,
      }),
    ).toEqual({
      name: 'marshmallow-code__marshmallow-1867',
      detail: 'replay__default__t-0.20__p-0.95__c-2.00__install-1___install_from_source',
    });
    expect(
      trajectoryName({
        externalId:
          'replay__marshmallow-code__marshmallow-1867__function_calling_replace_from_source__marshmallow-code__marshmallow-1867.traj',
        taskId: null,
        trial: null,
      }),
    ).toEqual({
      name: 'marshmallow-code__marshmallow-1867',
      detail: 'replay__function_calling_replace_from_source',
    });
    // SWE-agent's own layout (a folder of ../shared/data/swe-agent, imported as a folder by the
    // CLI or the Import page): two runs of one instance differ only by their run folder.
    for (const [run, detail] of [
      [
        'replay__marshmallow-code__marshmallow-1867__function_calling_replace__install-1',
        'replay__function_calling_replace__install-1',
      ],
      [
        'replay__marshmallow-code__marshmallow-1867__default__t-0.20__p-0.95__c-2.00__install-1',
        'replay__default__t-0.20__p-0.95__c-2.00__install-1',
      ],
    ]) {
      expect(
        trajectoryName({
          externalId: `demonstrations/${run}/marshmallow-code__marshmallow-1867.traj`,
          taskId: null,
          trial: null,
        }),
      ).toEqual({ name: 'marshmallow-code__marshmallow-1867', detail });
    }
    expect(
      trajectoryName({
        externalId: 'ic_sql_multiturn_gpt-4_10_turns.json#3',
        taskId: '3',
        trial: null,
      }),
    ).toEqual({ name: 'ic_sql_multiturn_gpt-4_10_turns.json#3', detail: null });
    expect(
      trajectoryName({
        externalId: 'ic_sql_multiturn_gpt-4_10_turns.json#3',
        taskId: '17',
        trial: null,
      }),
    ).toEqual({ name: 'task 17', detail: 'ic_sql_multiturn_gpt-4_10_turns.json#3' });
  });

  it('names a "What if" fork by its parent and step, whatever its random suffix holds', () => {
    // Fork ids end in 8 random hex digits; once they held "40", task 40's fork was named by its id.
    for (const suffix of ['96b40a83', '0d1e2f3a']) {
      expect(
        trajectoryName({
          externalId: `55094b9e-ef3e-42b4-8ca2-18e82cd7e7ae~fork@6~${suffix}`,
          taskId: '40',
          trial: '0',
        }),
      ).toEqual({ name: 'task 40 · trial 0 · fork at step 6', detail: null });
    }
    expect(
      trajectoryName({ externalId: 'task-0-trial-0~fork@2~abcdef01', taskId: '0', trial: '0' }),
    ).toEqual({ name: 'task 0 · trial 0 · fork at step 2', detail: null });
  });

  it('takes a task id as named by an id only when it stands as a whole part', () => {
    expect(trajectoryName({ externalId: 'run-1402', taskId: '40', trial: null })).toEqual({
      name: 'task 40',
      detail: 'run-1402',
    });
    expect(trajectoryName({ externalId: 'retail_40_t1', taskId: '40', trial: null })).toEqual({
      name: 'retail_40_t1',
      detail: null,
    });
  });

  it('names a curriculum rollout by lineage, generation and probe, not by `p0` alone', () => {
    expect(
      trajectoryName({ externalId: 'r1/g3/scratch-tail/p0', taskId: null, trial: null }),
    ).toEqual({ name: 'scratch-tail · generation 3 · probe 0', detail: 'curriculum run r1' });
    expect(
      trajectoryName({ externalId: 'r1/g3/scratch-tail/p1/sim', taskId: null, trial: null }),
    ).toEqual({
      name: 'scratch-tail · generation 3 · probe 1 · simulated',
      detail: 'curriculum run r1',
    });
  });
});
