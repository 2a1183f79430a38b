import { describe, expect, it } from 'vitest';
import { DigestCache } from './agreement-cache';

describe('DigestCache', () => {
  it('computes once per inputs, and lets the least recently asked-for entry go first', () => {
    const cache = new DigestCache<string>(2);
    const computed: string[] = [];
    const get = (inputs: unknown) =>
      cache.get(inputs, () => {
        computed.push(JSON.stringify(inputs));
        return `value of ${JSON.stringify(inputs)}`;
      });
    expect(get({ a: 1 })).toBe('value of {"a":1}');
    expect(get(['b'])).toBe('value of ["b"]');
    // Equal inputs, another object: kept.
    expect(get({ a: 1 })).toBe('value of {"a":1}');
    expect(computed).toEqual(['{"a":1}', '["b"]']);
    // A third entry pushes out ["b"], asked for least recently.
    get('c');
    expect(cache.size).toBe(2);
    get({ a: 1 });
    get(['b']);
    expect(computed).toEqual(['{"a":1}', '["b"]', '"c"', '["b"]']);
  });
});
