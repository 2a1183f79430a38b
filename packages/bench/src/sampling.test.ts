import { describe, expect, it } from 'vitest';
import { sampleTurnIndices } from './sampling';

describe('sampleTurnIndices', () => {
  it('takes first, three evenly spaced middle turns and last (AgentWorldBench)', () => {
    expect(sampleTurnIndices(10, { kind: 'agentworld' }, 0)).toEqual([0, 2, 5, 7, 9]);
    expect(sampleTurnIndices(5, { kind: 'agentworld' }, 0)).toEqual([0, 1, 2, 3, 4]);
  });

  it('takes fewer turns from short trajectories, never the same one twice', () => {
    expect(sampleTurnIndices(4, { kind: 'agentworld' }, 0)).toEqual([0, 1, 2, 3]);
    expect(sampleTurnIndices(2, { kind: 'agentworld' }, 0)).toEqual([0, 1]);
    expect(sampleTurnIndices(1, { kind: 'agentworld' }, 0)).toEqual([0]);
    expect(sampleTurnIndices(0, { kind: 'agentworld' }, 0)).toEqual([]);
  });

  it('takes every turn with `all`', () => {
    expect(sampleTurnIndices(3, { kind: 'all' }, 0)).toEqual([0, 1, 2]);
  });

  it('draws N distinct turns with a seeded PRNG', () => {
    const first = sampleTurnIndices(50, { kind: 'random', count: 4 }, 42);
    expect(first).toHaveLength(4);
    expect(new Set(first).size).toBe(4);
    expect(sampleTurnIndices(50, { kind: 'random', count: 4 }, 42)).toEqual(first);
    expect(sampleTurnIndices(50, { kind: 'random', count: 4 }, 43)).not.toEqual(first);
    expect(sampleTurnIndices(3, { kind: 'random', count: 4 }, 42)).toEqual([0, 1, 2]);
  });
});
