import { describe, expect, it } from 'vitest';
import { forkParentOf, simulatedStepLabel } from './fork-origin';

describe('fork origin', () => {
  it('reads the parent a fork records, and nothing from other metadata', () => {
    expect(
      forkParentOf({
        fork: {
          parentDataset: { id: '3', name: 'retail' },
          parentTrajectory: { id: '41', externalId: '55094b9e' },
          step: 5,
          sim: 'retrieval',
        },
      }),
    ).toEqual({
      datasetId: '3',
      trajectoryId: '41',
      externalId: '55094b9e',
      step: 5,
      sim: 'retrieval',
    });
    expect(forkParentOf({})).toBeNull();
    expect(forkParentOf({ fork: { parentDataset: { id: 3 } } })).toBeNull();
  });

  it('labels edited and simulated steps only', () => {
    expect(simulatedStepLabel({ edited: true, simulated: true })).toBe(
      'edited action · simulated observation',
    );
    expect(simulatedStepLabel({ simulated: true })).toBe('simulated observation');
    expect(simulatedStepLabel({ simulated: 'yes' })).toBeNull();
  });
});
