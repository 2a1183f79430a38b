import { describe, expect, it } from 'vitest';
import { applyRenames, keyRenames } from './learn-reads';
import { pythonJsonDumps } from './python-json';

describe('pythonJsonDumps', () => {
  it("prints json.dumps's separators and escapes non-ASCII", () => {
    expect(pythonJsonDumps({ a: [1, 'é', null, true], 'b"': {} })).toBe(
      '{"a": [1, "\\u00e9", null, true], "b\\"": {}}',
    );
  });
});

describe('keyRenames', () => {
  it('finds renamed keys when values and order agree, and refuses other differences', () => {
    const stored = { name: 'x', address: { city: 'c', state: 'TX' } };
    const observed = { name: 'x', address: { city: 'c', province: 'TX' } };
    const renames = keyRenames(stored, observed);
    expect(renames).toEqual([{ path: ['address', 'state'], to: 'province' }]);
    expect(applyRenames(stored, renames ?? [])).toEqual(observed);
    expect(keyRenames(stored, { name: 'x', address: { city: 'd', province: 'TX' } })).toBeNull();
    expect(keyRenames([1, 2], [1])).toBeNull();
  });
});
