import * as fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { JsonPrefix } from './json-prefix';

const bytes = (text: string) => new TextEncoder().encode(text);

/** Whether every prefix of `text` is accepted, and where the first refused byte is. */
function firstRefused(text: string): number {
  const prefix = new JsonPrefix();
  const all = bytes(text);
  for (let i = 0; i < all.length; i++) {
    if (!prefix.accept([all[i] ?? 0])) return i;
  }
  return -1;
}

describe('JsonPrefix', () => {
  it('accepts every prefix of real JSON, and says when the value is whole', () => {
    const text =
      '{"order_id": "#W2", "items": [{"price": 95.08, "ok": true, "n": null}], "e": -1.5e+3, "u": "caf\\u00e9 😀", "a": []}';
    expect(firstRefused(text)).toBe(-1);
    const prefix = new JsonPrefix();
    expect(prefix.accept(bytes(text.slice(0, -1)))).toBe(true);
    expect(prefix.isComplete()).toBe(false);
    expect(prefix.accept(bytes('} \n'))).toBe(true);
    expect(prefix.isComplete()).toBe(true);
    // Nothing but whitespace may follow a whole value.
    expect(prefix.accept(bytes(','))).toBe(false);
  });

  it('refuses what cannot continue a value, leaving its state as it was', () => {
    for (const [text, at] of [
      ['{"a" 1}', 5],
      ['[1,]', 3],
      ['{"a":1,}', 7],
      ['[01]', 2],
      ['{"a":tru}', 8],
      ['"a\nb"', 2],
      ['{a:1}', 1],
      ['[1 2]', 3],
      ['"\\x"', 2],
    ] as const) {
      expect({ text, refusedAt: firstRefused(text) }).toEqual({ text, refusedAt: at });
    }
    const prefix = new JsonPrefix();
    prefix.accept(bytes('{"a": [1'));
    expect(prefix.accept(bytes('}'))).toBe(false);
    expect(prefix.accept(bytes(']}'))).toBe(true);
    expect(prefix.isComplete()).toBe(true);
  });

  it('a top-level number is whole when it can end', () => {
    const prefix = new JsonPrefix();
    prefix.accept(bytes('685.'));
    expect(prefix.isComplete()).toBe(false);
    prefix.accept(bytes('48'));
    expect(prefix.isComplete()).toBe(true);
  });

  it('closes any prefix of generated JSON into JSON that parses (fuzzed)', () => {
    fc.assert(
      fc.property(fc.json(), fc.nat(), (text, cut) => {
        const prefix = new JsonPrefix();
        const all = bytes(text);
        const head = all.subarray(0, cut % (all.length + 1));
        expect(prefix.accept(head)).toBe(true);
        // A cut inside a multi-byte character is completed by the string's closing quote only
        // after the character, so the test cuts at character boundaries for the parse.
        const decoded = new TextDecoder('utf-8', { fatal: false }).decode(head);
        if (decoded.includes('\uFFFD')) return;
        expect(() => JSON.parse(decoded + prefix.closing())).not.toThrow();
      }),
      { numRuns: 2000, seed: 7 },
    );
  });
});
