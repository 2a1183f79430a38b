import { describe, expect, it } from 'vitest';
import { StreamSlots } from './stream-slots';

describe('StreamSlots', () => {
  it('starts what fits, queues the rest in order, and hands a freed slot to the next', () => {
    const slots = new StreamSlots(2);
    const begun: string[] = [];
    const release = ['a', 'b', 'c', 'd'].map((name) => slots.take(() => begun.push(name)));
    expect(begun).toEqual(['a', 'b']);
    release[1]?.();
    expect(begun).toEqual(['a', 'b', 'c']);
    // Leaving the line before its turn: d never begins, and c's slot returns to the pool.
    release[3]?.();
    release[2]?.();
    release[2]?.();
    expect(begun).toEqual(['a', 'b', 'c']);
    const later: string[] = [];
    slots.take(() => later.push('e'));
    slots.take(() => later.push('f'));
    expect(later).toEqual(['e']);
    release[0]?.();
    expect(later).toEqual(['e', 'f']);
  });

  it('begins nobody waiting once cleared', () => {
    const slots = new StreamSlots(1);
    const begun: string[] = [];
    const first = slots.take(() => begun.push('a'));
    slots.take(() => begun.push('b'));
    slots.clear();
    first();
    expect(begun).toEqual(['a']);
  });
});
