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

describe('floats and key order JSON.parse forgets', () => {
  it('finds float fields and keeps integer-like keys in source order', async () => {
    const { floatKeysOf, parseOrderedJson } = await import('./python-json');
    const text =
      '{"price": 10.0, "n": 3, "list": [2.5], "variants": {"9083642334": 1, "1008292230": 2}}';
    expect([...floatKeysOf([text])].toSorted()).toEqual(['list', 'price']);
    const { value, keyOrder } = parseOrderedJson(text);
    expect(pythonJsonDumps(value, { floatKeys: floatKeysOf([text]), keyOrder })).toBe(
      '{"price": 10.0, "n": 3, "list": [2.5], "variants": {"9083642334": 1, "1008292230": 2}}',
    );
    // Without the order, JS puts the smaller integer-like key first.
    expect(pythonJsonDumps(value)).toContain('{"1008292230": 2, "9083642334": 1}');
  });

  it('learns null fields a tool adds and never inserts one a write already set', () => {
    const renames = keyRenames({ a: 1, b: 2 }, { a: 1, x: null, b: 2, y: null });
    expect(renames).toEqual([
      { path: [], insert: 'x', before: 'b' },
      { path: [], insert: 'y', before: null },
    ]);
    expect(applyRenames({ a: 1, b: 2 }, renames ?? [])).toEqual({ a: 1, x: null, b: 2, y: null });
    expect(JSON.stringify(applyRenames({ a: 1, b: 2, y: 'set' }, renames ?? []))).toBe(
      '{"a":1,"x":null,"b":2,"y":"set"}',
    );
    expect(keyRenames({ a: 1 }, { a: 1, x: 0 })).toBeNull();
  });
});
