/**
 * Seeded randomness and stable orders that give the same answer on every machine and in the
 * browser: pure JavaScript over UTF-16 code units, no crypto API (async in browsers) and no
 * Math.random. Content hashes and canonical JSON are packages/worlds' (re-exported here).
 */
import { cyrb53 } from '@terrarium/worlds';

export { canonicalJson, hashText } from '@terrarium/worlds';

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

/** Orders strings by UTF-16 code units: the same on every machine, unlike localeCompare. */
export function compareCodeUnits(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
