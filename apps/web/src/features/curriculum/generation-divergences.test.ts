import type { RolloutDivergence } from '@terrarium/api';
import { describe, expect, it } from 'vitest';
import { probeList, sameAcrossProbes } from './generation-divergences';

function divergence(probe: number, step: number, predicted: string): RolloutDivergence {
  return {
    trajectoryId: `t${probe}`,
    datasetId: '1',
    probe,
    step,
    action: 'find /workspace -iname "*hello*"',
    executed: '/workspace/dir1/hello.txt\n',
    predicted,
    contentScore: 0,
  };
}

describe('divergent steps of a generation', () => {
  it('shows a divergence that every probe repeats once, with its probes', () => {
    const scripted = [1, 2, 3, 4].map((probe) => divergence(probe, 2, ''));
    const other = divergence(3, 2, 'hello.txt\n');
    const grouped = sameAcrossProbes([...scripted, other]);
    expect(grouped.map(({ divergence: first, probes }) => [first.trajectoryId, probes])).toEqual([
      ['t1', [1, 2, 3, 4]],
      ['t3', [3]],
    ]);
    expect(grouped.map(({ probes }) => probeList(probes))).toEqual(['1–4', '3']);
    expect(probeList([5, 1])).toBe('1, 5');
    expect(probeList([1, 2])).toBe('1, 2');
  });
});
