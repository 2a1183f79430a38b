/**
 * Content hashes and seeded randomness that give the same answer on every machine and in the
 * browser: pure JavaScript over UTF-16 code units, no crypto API (async in browsers) and no Math.random.
 */

/** A 106-bit non-cryptographic hash as 28 hex digits (two seeded cyrb53 rounds, as worlds/hash.ts). */
export function hashText(text: string): string {
  return (
    cyrb53(text, 0x9e3779b9).toString(16).padStart(14, '0') +
    cyrb53(text, 0x85ebca6b).toString(16).padStart(14, '0')
  );
}

function cyrb53(text: string, seed: number): number {
  let h1 = 0xdeadbeef ^ seed;
  let h2 = 0x41c6ce57 ^ seed;
  for (let index = 0; index < text.length; index++) {
    const code = text.charCodeAt(index);
    h1 = Math.imul(h1 ^ code, 2654435761);
    h2 = Math.imul(h2 ^ code, 1597334677);
  }
  h1 = Math.imul(h1 ^ (h1 >>> 16), 2246822507);
  h1 ^= Math.imul(h2 ^ (h2 >>> 13), 3266489909);
  h2 = Math.imul(h2 ^ (h2 >>> 16), 2246822507);
  h2 ^= Math.imul(h1 ^ (h1 >>> 13), 3266489909);
  return 4294967296 * (2097151 & h2) + (h1 >>> 0);
}

/** A uniform number in [0, 1) fixed by the text: stable split and selection decisions. */
export function unitFromText(text: string): number {
  return cyrb53(text, 0x27d4eb2f) / 2 ** 53;
}

/** 32-bit seed for a PRNG, fixed by the text. */
export function seedFromText(text: string): number {
  return cyrb53(text, 0x165667b1) >>> 0;
}

/** Mulberry32: a small seeded PRNG; returns numbers in [0, 1). */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * JSON with object keys sorted (by code unit, not locale) and undefined members left out, so equal
 * values always serialize to the same text whatever order their keys were built in.
 */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) {
    return `[${value.map((element) => (element === undefined ? 'null' : canonicalJson(element))).join(',')}]`;
  }
  if (isRecord(value)) {
    const members: string[] = [];
    for (const key of Object.keys(value).toSorted(compareCodeUnits)) {
      const member = value[key];
      if (member === undefined) continue;
      members.push(`${JSON.stringify(key)}:${canonicalJson(member)}`);
    }
    return `{${members.join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

/** Orders strings by UTF-16 code units: the same on every machine, unlike localeCompare. */
export function compareCodeUnits(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
