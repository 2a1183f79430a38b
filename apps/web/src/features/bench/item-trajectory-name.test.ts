import { describe, expect, it } from 'vitest';
import { itemTrajectoryName, shortName } from './item-trajectory-name';

describe('itemTrajectoryName', () => {
  it('names a bench item by its trajectory as the trajectory lists do', () => {
    // Real source ids of the demo bench (tau2-bench, SWE-agent, tau-bench v1).
    expect(
      itemTrajectoryName({
        trajectory: {
          externalId: 'd82b442a-f9f1-4a8c-a69d-40e4818498fc',
          taskId: '64',
          trial: '0',
        },
      }),
    ).toEqual({ name: 'task 64 · trial 0', detail: null });
    expect(
      itemTrajectoryName({
        trajectory: {
          externalId:
            '../demo/data/swe-agent/gpt4__swe-bench-dev-easy_first_only__default__t-0.00__p-0.95__c-3.00__install-1__pydicom__pydicom-1458.traj',
          taskId: null,
          trial: null,
        },
      }),
    ).toEqual({
      name: 'pydicom__pydicom-1458',
      detail: 'gpt4__swe-bench-dev-easy_first_only__default__t-0.00__p-0.95__c-3.00__install-1',
    });
    expect(
      itemTrajectoryName({
        trajectory: { externalId: 'task-7-trial-1', taskId: '7', trial: '1' },
      }),
    ).toEqual({ name: 'task 7 · trial 1', detail: null });
  });

  it('falls back to the source id when the dataset no longer says the task', () => {
    expect(
      itemTrajectoryName({
        trajectory: {
          externalId: 'd82b442a-f9f1-4a8c-a69d-40e4818498fc',
          taskId: null,
          trial: null,
        },
      }),
    ).toEqual({ name: 'd82b442a-f9f1-4a8c-a69d-40e4818498fc', detail: null });
  });

  it('names no trajectory for an item imported from a bench file', () => {
    expect(itemTrajectoryName({ trajectory: null })).toBeNull();
  });
});

describe('shortName', () => {
  it('cuts a long name in its middle, keeping the end that tells rows apart', () => {
    expect(shortName('marshmallow-code__marshmallow-1359')).toBe('marshm…mallow-1359');
    expect(shortName('marshmallow-code__marshmallow-1343')).toBe('marshm…mallow-1343');
    expect(shortName('marshmallow-code__marshmallow-1359')).toHaveLength(18);
    // tau2's names (task and trial) are whole up to three-digit tasks.
    expect(shortName('task 113 · trial 3')).toBe('task 113 · trial 3');
  });
});
