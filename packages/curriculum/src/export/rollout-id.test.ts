import { describe, expect, it } from 'vitest';
import { parseRolloutExternalId, rolloutExternalId, type RolloutId } from './rollout-trajectory';

describe('rollout ids', () => {
  it('reads back what rolloutExternalId wrote, lineage ids with slashes included', () => {
    const ids: RolloutId[] = [
      { generation: 1, lineageId: 'L0', probe: 0, mode: 'executable' },
      { generation: 12, lineageId: 'L3', probe: 7, mode: 'simulated' },
      { generation: 2, lineageId: 'bash/task-9', probe: 1, mode: 'simulated' },
    ];
    for (const id of ids) {
      expect(parseRolloutExternalId('41', rolloutExternalId('41', id))).toEqual(id);
    }
  });

  it('refuses ids of another run and ids it did not write', () => {
    const id = rolloutExternalId('41', {
      generation: 1,
      lineageId: 'L0',
      probe: 0,
      mode: 'executable',
    });
    expect(parseRolloutExternalId('4', id)).toBeNull();
    expect(parseRolloutExternalId('41', '41/g1/L0')).toBeNull();
    expect(parseRolloutExternalId('41', '41/gx/L0/p0')).toBeNull();
    expect(parseRolloutExternalId('41', '41/g1/L0/p0/real')).toBeNull();
  });
});
